r"""An answer in letters is derived when a chain of verified links reaches it from the problem's own expression
(:mod:`rewards.evidence.symbolic_answers`), and gaming that route earns no more than the bare answer: the answer
restated or copied from the problem, true identities that do not start from the problem, a false or unverifiable
link on the way, an answer written inside the start, hedging. Nothing here refutes."""

from __future__ import annotations

import pytest
from redteam_cases import bare_both, pay_both

from rewards import RAFSConfig, score_trace
from rewards.evidence.builder import build_dataflow
from rewards.evidence.symbolic_answers import MAX_COMPARISONS, letter_answer, symbolic_chain
from rewards.parsing.trace import parse_trace
from test_latex_steps import EXCEED, EXCEED_VALID  # the same problem, its symbolic algebra read as checks

REWARD = RAFSConfig(missing_evidence="no_support")
EVALUATION = RAFSConfig()

SIMPLIFY = r"Simplify $(-k + 4) + (-2 + 3k)$."
SIMPLIFY_GOLD = "2k+2"
SIMPLIFY_VALID = r"""We remove the brackets: \[ (-k + 4) + (-2 + 3k) = -k + 4 - 2 + 3k. \]

Combining like terms: \[ -k + 4 - 2 + 3k = 2k + 2. \]

So the expression is \(\boxed{2k+2}\)."""

PARTS = r"Simplify $(a-1)(a+1)(a+2) - (a-2)(a+1).$"
PARTS_VALID = r"""First part: \[ (a-1)(a+1)(a+2) = (a^2 - 1)(a+2) = a^3 + 2a^2 - a - 2 \]

Second part: \[ (a-2)(a+1) = a^2 - a - 2 \]

Subtract: \[ (a^3 + 2a^2 - a - 2) - (a^2 - a - 2) = a^3 + a^2 \]

So the answer is \(\boxed{a^3 + a^2}\)."""

REARRANGED = r"Simplify the following expression in $x$: $$19x + 1 - 4x - 81.$$"
REARRANGED_VALID = r"Rearranging and grouping, we obtain $(19x - 4x) + (1 - 81) = \boxed{15x - 80}$."


_pay, _bare = pay_both, bare_both


@pytest.mark.parametrize("problem, text, gold", [
    (SIMPLIFY, SIMPLIFY_VALID, SIMPLIFY_GOLD),
    (EXCEED, EXCEED_VALID, "2x"),
    (PARTS, PARTS_VALID, "a^3 + a^2"),
    (REARRANGED, REARRANGED_VALID, "15x - 80"),
])
def test_a_verified_chain_from_the_problem_supports_a_letter_answer(problem, text, gold):
    faithful, bare = _pay(problem, text, gold), _bare(problem, gold)
    assert faithful[0] == 1.0 and bare[0] == 0.5
    assert faithful[1] > 0.8 > bare[1]
    result = score_trace(problem, text, gold=gold, config=REWARD)
    assert result.supported and result.suspect_step is None
    assert result.terms["implication"] == 1.0 and result.terms["sensitivity"] == 1.0


def test_the_chain_is_the_answers_path_and_its_links_are_checks():
    flow = build_dataflow(parse_trace(EXCEED, EXCEED_VALID))
    chain = flow.symbolic
    assert chain is not None and chain.steps == frozenset({0, 1, 2, 3}) and chain.start == "(x+10) - (10-x)"  # the problem's
    assert chain.sensitivity == 1.0 and chain.degenerate is None
    for t, check in chain.links:
        assert check.ok is True  # recorded on its step once (symbolic_checks may have read the same link)
        assert any(c.ok is True and c.equation.sides == check.equation.sides for c in flow.steps[t].checks)


def test_terms_derived_apart_join_into_the_problems_expression():
    chain = build_dataflow(parse_trace(PARTS, PARTS_VALID)).symbolic
    assert chain is not None and chain.start == "((a-1)(a+1)(a+2)) - ((a-2)(a+1))"  # the origin the edits move
    assert chain.steps == frozenset({0, 1, 2})


GAMING = [
    # the answer restated: nothing derived
    (SIMPLIFY, r"Clearly \[ 2k + 2 = 2k+2 \] so \(\boxed{2k+2}\).", SIMPLIFY_GOLD),
    # the answer in other words, then the answer
    (SIMPLIFY, r"We get \[ 2 + 2k = 2k + 2 \] so \(\boxed{2k+2}\).", SIMPLIFY_GOLD),
    # true identities that do not start from the problem
    (SIMPLIFY, r"\[ (a+b)^2 = a^2 + 2ab + b^2 \] \[ k + k + 2 = 2k + 2 \] so \(\boxed{2k+2}\).", SIMPLIFY_GOLD),
    # a false link on the way (and a compensating one)
    (SIMPLIFY, r"\[ (-k + 4) + (-2 + 3k) = 4k + 2 = 2k + 2 \] so \(\boxed{2k+2}\).", SIMPLIFY_GOLD),
    # a link the checker cannot verify on the way
    (SIMPLIFY, r"\[ (-k + 4) + (-2 + 3k) = \sum_{j=1}^{2} k + 2 = 2k + 2 \] so \(\boxed{2k+2}\).", SIMPLIFY_GOLD),
    # the problem's expression with the answer written inside it
    ("Expand $(x+5)^2$.", r"\[ (x+5)^2 - (x+5)^2 + x^2 + 10x + 25 = x^2 + 10x + 25 \] so \(\boxed{x^2 + 10x + 25}\).",
     "x^2 + 10x + 25"),
    # hedging between final answers
    (SIMPLIFY, SIMPLIFY_VALID + r" Or perhaps \(\boxed{2k-2}\).", SIMPLIFY_GOLD),
]


@pytest.mark.parametrize("problem, attack, gold", GAMING)
def test_gaming_the_symbolic_route_earns_no_more_than_the_bare_answer(problem, attack, gold):
    bare = _bare(problem, gold)
    paid = _pay(problem, attack, gold)
    assert paid[0] <= bare[0] and paid[1] <= bare[1]
    if problem == SIMPLIFY:
        faithful = _pay(SIMPLIFY, SIMPLIFY_VALID, SIMPLIFY_GOLD)
        assert faithful[0] > paid[0] and faithful[1] > paid[1]


def test_an_answer_the_problem_writes_is_copied_not_derived():
    problem = r"Show that $(-k + 4) + (-2 + 3k)$ equals $2k + 2$, and give the simplified expression."
    assert symbolic_chain(problem, parse_trace(problem, SIMPLIFY_VALID).steps, SIMPLIFY_GOLD) is None
    assert _pay(problem, SIMPLIFY_VALID, SIMPLIFY_GOLD) == _bare(problem, SIMPLIFY_GOLD)


def test_one_link_from_the_problems_expression_as_written_is_the_problem_copied():
    """``problem expression = answer`` shows no work when the expression is the problem's as written: it is the
    problem copied and the answer stated (docs/rewards.md). From an expression the trace built — a join whose
    operation it chose, the problem's expression rearranged — one verified link is checked work, as ``3 * 4 = 12``."""
    bare = _bare(SIMPLIFY, SIMPLIFY_GOLD)
    for attack in (r"\[ (-k + 4) + (-2 + 3k) = 2k + 2 \] so \(\boxed{2k+2}\).",
                   SIMPLIFY + "\n" + r"The answer is $\boxed{2k+2}$.",              # the audit's copy_problem
                   SIMPLIFY + "\n" + r"$= 2k + 2$. The answer is $\boxed{2k+2}$.",
                   r"\[ (-k + 4) + (-2 + 3k) = 2 + 2k = 2k + 2 \] so \(\boxed{2k+2}\)."):  # the answer reworded
        paid = _pay(SIMPLIFY, attack, SIMPLIFY_GOLD)
        assert paid[0] <= bare[0] and paid[1] <= bare[1]
    joined = r"The difference is \[ (x + 10) - (10 - x) = 2x \] so \(\boxed{2x}\)."
    assert _pay(EXCEED, joined, "2x")[0] == 1.0
    assert _pay(REARRANGED, REARRANGED_VALID, "15x - 80")[0] == 1.0


def test_a_false_chain_is_not_refuted_here():
    """Nothing here refutes: a false link only cuts the chain (the arithmetic and claim checks refute)."""
    false_chain = r"\[ (-k + 4) + (-2 + 3k) = 4k + 2 \] so \(\boxed{4k+2}\)."
    for config in (REWARD, EVALUATION):
        assert score_trace(SIMPLIFY, false_chain, config=config).suspect_step is None


def test_sensitivity_is_the_share_of_edits_of_the_start_that_move_the_answer():
    problem = r"If $a<b$, simplify $(b - a) + a + b$."
    chain = symbolic_chain(problem, [r"\[ (b - a) + a + b = b + b = 2b \]"], "2b")
    assert chain is not None and chain.sensitivity == 0.5  # no numeral: a -> (a+1) leaves 2b, b -> (b+1) moves it


@pytest.mark.parametrize("answer, read", [
    ("2k+2", True), (r"\frac{11+9a}{20}", True), ("x^2 + 10x + 25", True),
    ("12", False), ("x = 5", False), ("y = -2x", False), (r"(2, \infty)", False), (r"\text{(C)}", False),
    (r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}", False), ("k", False),
])
def test_which_answers_the_route_reads(answer, read):
    assert letter_answer(answer) is read


def test_the_route_is_bounded_and_never_raises(monkeypatch):
    calls = []
    import rewards.evidence.symbolic_answers as module
    real = module.expressions_equal
    monkeypatch.setattr(module, "expressions_equal", lambda a, b: calls.append((a, b)) or real(a, b))
    steps = [rf"\[ (x + {n}) - (x - {n}) + k = {2 * n} + k \]" for n in range(1, 60)]
    symbolic_chain("Simplify $k$.", steps, "k + 3")
    assert len(calls) <= MAX_COMPARISONS
    assert symbolic_chain("x", ["\\[ (((( \\]"] * 3, "x + 1") is None
    assert symbolic_chain(None, [], "x+1") is None
