"""Coordinate geometry, vectors and matrices with explicit numbers: only false claims are flagged."""

import pickle
import time

import pytest

import rewards.checks.claims
from rewards import score_trace
from rewards.checks.claims.coordinates import check_trace
from rewards.checks.equations import step_equations

TABLE = [
    # tuple equalities (midpoints computed in a display)
    (r"\[ M = \left( \frac{3+7}{2}, \frac{4+10}{2} \right) = (5,8). \]", True),
    (r"\[ M = \left( \frac{3+7}{2}, \frac{4+10}{2} \right) = (5,7). \]", False),
    (r"The point is \((2 \cdot 1994, 2 \cdot 1994) = (3998, 3998)\).", True),
    (r"The point is \((2 \cdot 1994, 2 \cdot 1994) = (3988, 3988)\).", False),
    (r"$\left(1, \frac{1}{2}, 0\right) - \left(\frac{1}{2}, 0, 0\right) = \left(\frac{1}{2}, \frac{1}{2}, 0\right)$",
     False),
    (r"$(1, 2, 0) - (1, 0, 0) = (0, 1, 1)$", True),
    # rounded decimals are not false alarms
    (r"$\left(\frac{1}{3}, \frac{2}{3}\right) = (0.33, 0.67)$", False),
    (r"$\left(\frac{1}{3}, \frac{2}{3}\right) = (0.33, 0.76)$", True),
    # a side that is only partly a tuple, letters, gcd and combinations are left alone
    (r"$P(5, 2) = (20, 1)$", False),
    (r"$\gcd(12, 18) = 6$", False),
    (r"$(x, 2x + 1) = (1, 4)$", False),
    (r"$(m + 9k, m - 9k) = (1, -56), (2, -28)$", False),
    (r"$(1, 2)^T = (1, 3)$", False),
    (r"$C(52, 5) = 54,145$", False),
    # matrices, scalar multiples, products, dot and cross products, determinants
    (r"\[ \begin{pmatrix} 1 \\ 2 \end{pmatrix} + \begin{pmatrix} 3 \\ 4 \end{pmatrix} = "
     r"\begin{pmatrix} 4 \\ 7 \end{pmatrix} \]", True),
    (r"\[ \begin{pmatrix} 1 \\ 2 \end{pmatrix} + \begin{pmatrix} 3 \\ 4 \end{pmatrix} = "
     r"\begin{pmatrix} 4 \\ 6 \end{pmatrix} \]", False),
    (r"$3 \begin{pmatrix} 1 \\ -2 \end{pmatrix} = \begin{pmatrix} 3 \\ -6 \end{pmatrix}$", False),
    (r"$3 \begin{pmatrix} 1 \\ -2 \end{pmatrix} = \begin{pmatrix} 3 \\ 6 \end{pmatrix}$", True),
    (r"$\begin{pmatrix} 1 \\ 2 \end{pmatrix} \cdot \begin{pmatrix} 3 \\ 4 \end{pmatrix} = 11$", False),
    (r"$\begin{pmatrix} 1 \\ 2 \end{pmatrix} \cdot \begin{pmatrix} 3 \\ 4 \end{pmatrix} = 12$", True),
    (r"$\begin{pmatrix} 1 \\ 0 \\ 0 \end{pmatrix} \times \begin{pmatrix} 0 \\ 1 \\ 0 \end{pmatrix} = "
     r"\begin{pmatrix} 0 \\ 0 \\ 1 \end{pmatrix}$", False),
    (r"$\begin{pmatrix} 1 \\ 0 \\ 0 \end{pmatrix} \times \begin{pmatrix} 0 \\ 1 \\ 0 \end{pmatrix} = "
     r"\begin{pmatrix} 0 \\ 0 \\ -1 \end{pmatrix}$", True),
    (r"$\begin{vmatrix} 1 & 2 \\ 3 & 4 \end{vmatrix} = 1 \cdot 4 - 2 \cdot 3 = -2$", False),
    (r"$\begin{vmatrix} 1 & 2 \\ 3 & 4 \end{vmatrix} = 1 \cdot 4 + 2 \cdot 3$", True),
    (r"$\det \begin{pmatrix} 2 & 0 & 0 \\ 0 & 3 & 0 \\ 1 & 1 & 4 \end{pmatrix} = 24$", False),
    (r"$\det \begin{pmatrix} 2 & 0 & 0 \\ 0 & 3 & 0 \\ 1 & 1 & 4 \end{pmatrix} = 20$", True),
    (r"$\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix} \begin{pmatrix} 0 & 1 \\ 1 & 0 \end{pmatrix} = "
     r"\begin{pmatrix} 2 & 1 \\ 4 & 3 \end{pmatrix}$", False),
    (r"$\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix} \begin{pmatrix} 0 & 1 \\ 1 & 0 \end{pmatrix} = "
     r"\begin{pmatrix} 1 & 2 \\ 3 & 4 \end{pmatrix}$", True),
    # one chain written over two displays
    (r"\[ \begin{pmatrix} \frac{1}{10} \times \frac{1}{5} \end{pmatrix} \] = \[ \begin{pmatrix} \frac{1}{10} "
     r"\end{pmatrix} \]", True),
    # trigonometric entries evaluate; "\\ \sin" is a row break, not a thin space
    (r"$$\begin{pmatrix} \cos(-45^\circ) & -\sin(-45^\circ) \\ \sin(-45^\circ) & \cos(-45^\circ) \end{pmatrix} = "
     r"\begin{pmatrix} \frac{1}{\sqrt{2}} & \frac{1}{\sqrt{2}} \\ -\frac{1}{\sqrt{2}} & \frac{1}{\sqrt{2}} "
     r"\end{pmatrix}.$$", False),
    # letters in entries, augmented matrices
    (r"$\begin{pmatrix} \omega & 0 \\ 1 & 1 \end{pmatrix} = \begin{pmatrix} \omega & 0 \\ 2 & 1 \end{pmatrix}$", False),
    (r"\[\begin{pmatrix} 2 & 3 & | & 2 \\ 0 & 4 & | & 27 \end{pmatrix} = \begin{pmatrix} 2 & 3 & | & 2 \\ 0 & 4 & | "
     r"& 28 \end{pmatrix}\]", False),
    # claims in words
    ("The midpoint of $(2,4)$ and $(2,-4)$ is also $(0.5,-2)$.", True),
    ("The midpoint of $(2,4)$ and $(2,-4)$ is $(2,0)$.", False),
    ("If the midpoint of $(2,4)$ and $(2,-4)$ is $(0.5,-2)$, then we are wrong.", False),
    (r"The distance between $(0,0)$ and $(3,4)$ is $\sqrt{3^2+4^2} = 5$.", False),
    (r"The distance between $(1,1)$ and $(4,5)$ is $6$ units.", True),
    (r"The distance between \((1, 2)\) and \((3, 4)\) is \(2\sqrt{2}\).", False),
    (r"The distance between \((1, 2)\) and \((3, 4)\) is \(2\sqrt{3}\).", True),
    (r"The distance between $(0,0)$ and $(1,1)$ is about $1.41$.", False),
    (r"The slope of the line through $(1, 2)$ and $(3, 8)$ is $3$.", False),
    (r"The slope of the line through $(1, 2)$ and $(3, 8)$ is $\frac{1}{3}$.", True),
    (r"The slope of the line through $(1, 2)$ and $(1, 8)$ is undefined.", False),
    (r"The slope between $(b, 2)$ and $(3, 8)$ is $3$.", False),
]


@pytest.mark.parametrize("text,flagged", TABLE)
def test_table(text, flagged):
    assert bool(check_trace([text])) is flagged


def test_detail_says_what_is_false():
    (k, check), = check_trace([r"$\begin{pmatrix} 1 \\ 2 \end{pmatrix} \cdot \begin{pmatrix} 3 \\ 4 \end{pmatrix} = 12$"])
    assert k == 0 and check.ok is False
    assert "the left side is 11" in check.detail


@pytest.mark.parametrize("junk", [None, 42, "", "=" * 5000, "(" * 3000 + "1, 2" + ")" * 3000 + " = (1, 2)",
                                  "$" + "(1, 2) = " * 400 + "(1, 3)$", "$" + " " * 3990 + "= (1, 2)$",
                                  "midpoint " + "(1, 2) and " * 300, "distance between (1,2) and (3,4) is " + " " * 3900,
                                  r"$\begin{pmatrix}" + "1 & " * 900 + r"\end{pmatrix} = 1$"])
def test_odd_input_never_raises_and_is_fast(junk):
    start = time.process_time()
    assert check_trace([junk]) == [] or isinstance(junk, str)
    assert time.process_time() - start < 0.5
    assert [k for k, _ in check_trace([junk, "$(1, 2) + (3, 4) = (4, 7)$"])][-1:] == [1]


def test_picklable():
    assert pickle.loads(pickle.dumps(check_trace)) is check_trace


def test_end_to_end_suspect_step(monkeypatch):
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [check_trace])
    step_equations.cache_clear()
    problem = "Find the midpoint of the segment from (3, 4) to (7, 10)."
    steps = ["The endpoints are $(3,4)$ and $(7,10)$.",
             r"\[ M = \left( \frac{3+7}{2}, \frac{4+10}{2} \right) = (5,8). \]",
             r"So the midpoint is $\boxed{(5,8)}$."]
    assert score_trace(problem, steps=steps).suspect_step == 1
    monkeypatch.setattr(rewards.checks.claims, "CHECKERS", [])
    step_equations.cache_clear()
    assert score_trace(problem, steps=steps).suspect_step is None
