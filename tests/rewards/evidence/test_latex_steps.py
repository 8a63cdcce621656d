"""Symbolic algebra read as checked steps: a solution written in letters is checkable (no "nothing checkable"
abstention), what is read is verified on math-verify's parser, nothing is refuted by it, and true algebra written
for show earns no more than the bare answer."""

from __future__ import annotations

import pytest

import rewards.evidence.latex_steps as latex_steps
from rewards import RAFSConfig, score_trace
from rewards.adapters.trl_rewards import clear_cache, faithful_accuracy_reward, rafs_reward
from rewards.evidence.builder import build_dataflow
from rewards.evidence.latex_steps import MAX_LINKS, symbolic_checks
from rewards.parsing.trace import parse_trace
from test_latex_derivations import RATIO, RATIO_GOLD, RATIO_VALID  # the ratio problem and its valid solution

REWARD = RAFSConfig(missing_evidence="no_support")
EVALUATION = RAFSConfig()

ABS = r"If $a<b$, what is the value of $|a-b|+a+b$?"
ABS_VALID = r"""Since \( a < b \), we have \[ |a-b| = b-a. \]

Substituting: \[ |a-b| + a + b = (b-a) + a + b. \]

Combining like terms: \[ (b-a) + a + b = b + b = 2b. \]

Thus the value is \(\boxed{2b}\)."""

EXCEED = r"If $x$ is a positive number, by how much does $x+10$ exceed $10-x$? Express your answer in terms of $x$."
EXCEED_VALID = r"""The difference is \[ (x + 10) - (10 - x). \]

Distributing the negative sign: \[ x + 10 - 10 + x. \]

Combining like terms: \[ x + x + 10 - 10. \]

This simplifies to \[ 2x. \]

So \( x + 10 \) exceeds \( 10 - x \) by \(\boxed{2x}\)."""

ROOTS = r"""Solve the imaginary part: \[ -r^2 + 4r + 5 = 0. \] Multiplying by -1: \[ r^2 - 4r - 5 = 0. \]
Factoring: \[ (r - 5)(r + 1) = 0. \]"""


PADDING = r"""\[ (a + b)^2 = a^2 + 2ab + b^2 \]

\[ (x + 1)(x - 1) = x^2 - 1 \]

\[ x^3 - y^3 = (x - y)(x^2 + xy + y^2) \]

\[ f(x) + 2f(x) = 3f(x) \]

"""


def _steps(text: str) -> list[str]:
    return [s for s in text.split("\n\n") if s.strip()]


def _pay(problem: str, completion: str, gold: str) -> tuple[float, float]:
    clear_cache()
    return (faithful_accuracy_reward([problem], [completion], answer=[gold])[0],
            rafs_reward([problem], [completion], answer=[gold])[0])


def test_a_chain_of_identities_is_read_link_by_link():
    found = symbolic_checks(_steps(ABS_VALID))
    assert [c.equation.sides for _, c in found] == [["|a-b| + a + b", "(b-a) + a + b"], ["(b-a) + a + b", "b + b"],
                                                   ["b + b", "2b"]][1:]  # the absolute value is piecewise: unread
    assert all(c.ok is True and c.variable == "symbolic" for _, c in found)
    assert {t for t, _ in found} == {2}


def test_an_expression_rewritten_on_the_next_line_is_read():
    found = symbolic_checks(_steps(EXCEED_VALID))
    assert [(t, c.equation.sides) for t, c in found] == [
        (1, ["(x + 10) - (10 - x)", "x + 10 - 10 + x"]), (2, ["x + 10 - 10 + x", "x + x + 10 - 10"]),
        (3, ["x + x + 10 - 10", "2x"])]


def test_an_equation_that_follows_from_the_one_before_is_read():
    found = symbolic_checks([ROOTS])
    assert [c.equation.sides for _, c in found] == [["r^2 - 4r - 5", "0"], ["(r - 5)(r + 1)", "0"]]
    assert "follows from" in found[0][1].detail


@pytest.mark.parametrize("text", [
    r"\[ (x + 1)^2 = x^2 + 1 \]",                        # a false identity: unread, not refuted
    r"\[ x^2 + 2x \] then \[ x^2 + 3x \]",               # a false rewrite
    r"\[ |a - b| = b - a \]",                            # piecewise: agreement at a few points is no identity
    r"\[ \max(a, b) = b \]",
    r"\[ a = 2 \] \[ b = 5 \] \[ c = 7 \]",              # values listed, not derived from one another
    r"\[ x^2 + 1 \] and again \[ x^2 + 1 \]",            # a restatement
    r"\[ 2x + 3 = 11 \] \[ y = 4 \]",                    # an equation that does not follow
    r"\[ \Delta = b^2 - 4ac \]",                         # a name defined
])
def test_what_does_not_verify_is_left_unread(text):
    assert symbolic_checks([text]) == []


def test_a_trace_written_in_letters_is_checkable_and_nothing_is_refuted():
    for problem, text in ((ABS, ABS_VALID), (EXCEED, EXCEED_VALID)):
        flow = build_dataflow(parse_trace(problem, text))
        assert flow.coverage > 0
        for config in (REWARD, EVALUATION):
            result = score_trace(problem, text, config=config)
            assert not any("nothing checkable" in r for r in result.reasons)
            assert result.suspect_step is None
    false_chain = EXCEED_VALID.replace(r"\[ 2x. \]", r"\[ 3x. \]").replace(r"\boxed{2x}", r"\boxed{3x}")
    assert score_trace(EXCEED, false_chain, config=EVALUATION).suspect_step is None  # unread, never refuted here


def test_a_trace_with_a_checked_computation_is_not_read_again(monkeypatch):
    calls = []
    monkeypatch.setattr("rewards.evidence.builder.symbolic_checks", lambda steps: calls.append(steps) or [])
    build_dataflow(parse_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 12 pens. \\[ (x+1)^2 = x^2 + 2x + 1 \\]\n#### 12"))
    assert calls == []
    build_dataflow(parse_trace(EXCEED, EXCEED_VALID))
    assert len(calls) == 1


def test_true_algebra_written_for_show_earns_what_the_bare_answer_earns():
    for problem, gold in ((RATIO, RATIO_GOLD), (EXCEED, "2x"), (ABS, "2b")):
        bare = _pay(problem, rf"The answer is $\boxed{{{gold}}}$.", gold)
        padded = _pay(problem, PADDING + rf"The answer is $\boxed{{{gold}}}$.", gold)
        assert padded == bare
    faithful = _pay(RATIO, RATIO_VALID, RATIO_GOLD)
    padded = _pay(RATIO, PADDING + rf"The answer is $\boxed{{{RATIO_GOLD}}}$.", RATIO_GOLD)
    assert faithful[0] > padded[0] and faithful[1] > padded[1]


def test_reading_letters_derives_no_answer_by_itself():
    """The symbolic links support steps, not the answer: a letters-only trace earns more than the bare answer only
    where a verified chain reaches the answer from the problem's own expression
    (:mod:`rewards.evidence.symbolic_answers`; the absolute value of ``ABS_VALID`` is piecewise, so its chain starts
    at ``(b-a) + a + b``, which the problem does not write)."""
    bare = _pay(ABS, r"The answer is $\boxed{2b}$.", "2b")
    assert _pay(ABS, ABS_VALID, "2b") == bare
    assert _pay(EXCEED, EXCEED_VALID, "2x")[0] > _pay(EXCEED, r"The answer is $\boxed{2x}$.", "2x")[0]


def test_a_trace_of_many_symbolic_segments_is_bounded(monkeypatch):
    calls = []
    real_equal, real_follows = latex_steps.expressions_equal, latex_steps.equation_follows
    monkeypatch.setattr(latex_steps, "expressions_equal", lambda a, b: calls.append(1) or real_equal(a, b))
    monkeypatch.setattr(latex_steps, "equation_follows", lambda a, b: calls.append(1) or real_follows(a, b))
    steps = [rf"\[ (x + {k})^2 = x^2 + {2 * k}x + {k * k} = x(x + {2 * k}) + {k * k} \] \[ x + {k} \]"
             for k in range(1, 200)]
    symbolic_checks(steps)
    assert len(calls) <= MAX_LINKS


@pytest.mark.parametrize("steps", [[None, 3, b"x"], ["\\[" * 500], ["$" + "(" * 300 + "x" + ")" * 300 + "$"],
                                   [r"\[ x^{99999} = x \cdot x^{99998} \]"]])
def test_odd_input_never_raises(steps):
    assert isinstance(symbolic_checks(steps), list)


INEQUALITY = r"""To solve $6 - x > -9$, add $x$ to both sides: $6 > -9 + x$.

Adding 9: $6 + 9 > x$, so $15 > x$.

The greatest integer less than 15 is $\boxed{14}$."""


def test_an_inequality_rearranged_on_the_next_line_is_read():
    found = symbolic_checks(_steps(INEQUALITY))
    assert [(t, c.equation.sides) for t, c in found] == [(0, ["6 > -9 + x"]), (1, ["6 + 9 > x"]), (1, ["15 > x"])]
    assert symbolic_checks([r"\[ 2x - 6 \geq 0 \implies 2x \geq 6 \implies x \geq 3 \]"])[-1][1].equation.sides == \
        [r"x \geq 3"]


@pytest.mark.parametrize("text", [
    r"$-x < 13$, so $x < -13$",            # multiplied by -1 without turning the relation
    r"$x^2 > 4$, so $x > 2$",              # not a rearrangement
    r"$2x > 6$, so $x \geq 3$",            # strictness changed
    r"$|x + 4| < 9$, so $x + 4 < 9$",      # piecewise
])
def test_an_inequality_that_does_not_follow_by_rearranging_is_left_unread(text):
    assert symbolic_checks([text]) == []


def test_inequalities_written_for_show_earn_what_the_bare_answer_earns():
    problem = "What is the greatest integer that satisfies $6 - x > -9$ ?"
    padded = r"$x + 1 > x$, so $2x + 2 > 2x$, and $x - 3 < x$. The answer is $\boxed{14}$."
    assert _pay(problem, padded, "14") == _pay(problem, r"The answer is $\boxed{14}$.", "14")


def test_function_applications_are_read_as_unknowns():
    parity = [r"Since \( f(-x) = f(x) \) and \( g(-x) = -g(x) \),",
              r"\[ f(-x) g(-x) = f(x) \cdot (-g(x)) = -f(x) g(x). \]"]
    assert [c.equation.sides for _, c in symbolic_checks(parity)] == [[r"f(x) \cdot (-g(x))", "-f(x) g(x)"]]
    functional = [r"Setting \( x = 0 \): \[ f(0) + f(0) + f(2) + f(1) = 0. \] \[ 2f(0) + f(2) + f(1) = 0. \tag{1} \]"]
    assert [c.equation.sides for _, c in symbolic_checks(functional)] == [["2f(0) + f(2) + f(1)", "0"]]


@pytest.mark.parametrize("text", [
    r"\[ f(x) + f(y) = f(x + y) \]",        # true of some functions only: no identity
    r"\[ f(2x) = 2f(x) \]",
    r"\[ f(f(2)) = f(4) \]",                # a value put in, not algebra
    r"\[ f(a) + g(b) + h(c) + p(d) + q(e) = 0 \] \[ f(a) + g(b) + h(c) + p(d) = -q(e) \]",  # more than four
])
def test_function_applications_that_are_no_identity_are_left_unread(text):
    assert symbolic_checks([text]) == []


def test_an_internal_error_is_counted_and_raised_only_when_strict(monkeypatch):
    from rewards.checks.arithmetic import errors

    def broken(a, b):
        raise RuntimeError("checker bug")

    monkeypatch.setattr(latex_steps, "expressions_equal", broken)
    before = errors.error_counts().get("symbolic_checks:RuntimeError", 0)
    monkeypatch.delenv(errors.STRICT_ENV, raising=False)
    assert symbolic_checks(_steps(EXCEED_VALID)) == []
    assert errors.error_counts()["symbolic_checks:RuntimeError"] == before + 1
    monkeypatch.setenv(errors.STRICT_ENV, "1")
    with pytest.raises(RuntimeError):
        symbolic_checks(_steps(EXCEED_VALID))
    errors.counts.pop("symbolic_checks:RuntimeError", None)  # injected on purpose: no parser bug to report
