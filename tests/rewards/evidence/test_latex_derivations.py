"""An answer derived by LaTeX algebra the equation reader cannot follow: supported when the chain starts from the
problem, and never by identities, restatements or equations the completion made up."""

from __future__ import annotations

import time

import pytest

import rewards.evidence.builder as builder_module
from rewards import RAFSConfig, score_trace
from rewards.adapters.trl_rewards import clear_cache, faithful_accuracy_reward, rafs_reward
from rewards.evidence.builder import build_dataflow
from rewards.evidence.latex_derivations import math_segments
from rewards.parsing.trace import parse_trace

REWARD = RAFSConfig(missing_evidence="no_support")

RATIO = r"If $2x = 5y$ and $7y = 10z$, what is the value of $\frac{z}{x}$ expressed as a common fraction?"
RATIO_GOLD = r"\frac{7}{25}"
RATIO_VALID = r"""We have \[ 2x = 5y \Rightarrow x = \frac{5y}{2} \] and \[ 7y = 10z \Rightarrow y = \frac{10z}{7} \]

Substituting, \[ x = \frac{5 \cdot \frac{10z}{7}}{2} = \frac{50z}{14} = \frac{25z}{7} \]

So \[ \frac{z}{x} = \frac{z}{\frac{25z}{7}} = \frac{7}{25} \]

The answer is \(\boxed{\frac{7}{25}}\)."""

POWER = r"Find $x$ such that $2^{x+1} = 32$."
POWER_CHECKED = r"Since $32 = 2^5$, the exponent is five. Check: \[ 2^{4+1} = 32 \] The answer is $\boxed{4}$."

JANET = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
         "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
         "How much in dollars does she make every day at the farmers' market?")

TRICKS = [
    (RATIO, RATIO_GOLD, r"The answer is $\boxed{\frac{7}{25}}$."),
    (RATIO, RATIO_GOLD, r"\[ \frac{7}{25} = \frac{7}{25} \] \[ x = x \] The answer is $\boxed{\frac{7}{25}}$."),
    (RATIO, RATIO_GOLD, r"\[ a + b = b + a \] \[ 18 = 18 \] so \[ \frac{7}{25} \] The answer is $\boxed{\frac{7}{25}}$."),
    (RATIO, RATIO_GOLD, r"\[ \frac{14}{50} = \frac{7}{25} \] The answer is $\boxed{\frac{7}{25}}$."),
    (RATIO, RATIO_GOLD, r"Let $w$ satisfy \[ 25w = 7 \] so \[ w = \frac{7}{25} \] The answer is "
                        r"$\boxed{\frac{7}{25}}$."),
    (POWER, "4", r"The answer is $\boxed{4}$."),
    (POWER, "4", r"Check: \[ 4 \cdot 8 = 32 \] The answer is $\boxed{4}$."),  # a check of its own making
    (POWER, "4", r"Let \[ 3y - 8 = y \] so \[ y = 4 \] The answer is $\boxed{4}$."),  # an equation it wrote
    (POWER, "4", r"\[ 4 = 4 \] \[ 2 + 2 = 4 \] The answer is $\boxed{4}$."),
    # the answer's cofactor written as a fraction of the answer, a constant dressed as a ratio of a letter, the
    # answer put into an equation the completion wrote to look like the problem's
    (JANET, "18", r"\[ 16 \cdot \frac{18}{16} \] \[ = 18 \] #### 18"),
    (JANET, "18", r"\[ 9 + \frac{9 x}{x} \] \[ = 18 \] #### 18"),
    (POWER, "4", r"Check: \[ 2^{4+1} = 32 \] and \[ 2(4) + 24 = 32 \] The answer is $\boxed{4}$."),
]


def _without_hook(monkeypatch):
    monkeypatch.setattr(builder_module, "latex_answer_step", lambda *args, **kwargs: None)


def _pay(problem: str, completion: str, gold: str) -> tuple[float, float]:
    clear_cache()
    return (faithful_accuracy_reward([problem], [completion], answer=[gold])[0],
            rafs_reward([problem], [completion], answer=[gold])[0])


def test_math_segments_reads_display_and_inline_math():
    assert math_segments(r"So \( 2x = 8 \) and $$x = 4$$, \[ \begin{align} y &= 5 \\ z &= 6 \end{align} \]") == \
        ["2x = 8", "x = 4", "y  = 5", "z  = 6"]
    assert math_segments(r"\[ \begin{pmatrix} 1 \\ 2 \end{pmatrix} \]") == []


def test_a_latex_chain_from_the_problem_supports_the_answer(monkeypatch):
    trace = parse_trace(RATIO, RATIO_VALID)
    flow = build_dataflow(trace)
    assert flow.answer_step == len(trace.steps) - 2  # the step of "\frac{z}{x} = ... = \frac{7}{25}"
    assert score_trace(RATIO, RATIO_VALID, gold=RATIO_GOLD, config=REWARD).supported
    assert _pay(RATIO, RATIO_VALID, RATIO_GOLD)[0] == 1.0
    _without_hook(monkeypatch)
    assert build_dataflow(parse_trace(RATIO, RATIO_VALID)).answer_step is None
    assert not score_trace(RATIO, RATIO_VALID, gold=RATIO_GOLD, config=REWARD).supported
    assert _pay(RATIO, RATIO_VALID, RATIO_GOLD)[0] == 0.5


def test_the_answer_put_back_into_the_problems_equation_supports_it(monkeypatch):
    assert score_trace(POWER, POWER_CHECKED, gold="4", config=REWARD).supported
    assert _pay(POWER, POWER_CHECKED, "4")[0] == 1.0
    _without_hook(monkeypatch)
    assert not score_trace(POWER, POWER_CHECKED, gold="4", config=REWARD).supported


@pytest.mark.parametrize("problem, gold, completion", TRICKS)
def test_tricks_earn_nothing_more_with_the_latex_check(monkeypatch, problem, gold, completion):
    with_hook = _pay(problem, completion, gold)
    _without_hook(monkeypatch)
    assert with_hook == _pay(problem, completion, gold)  # (some already earn support without it: "2 + 2 = 4"
    # where the problem states a 2 is arithmetic on a problem quantity)


def test_a_trace_of_many_hostile_sides_is_bounded():
    sides = " ".join(r"\[ \frac{%d}{%d} + 2^{2^{2^{99}}} = \binom{10^9}{7} = %d \]" % (k, k + 1, k) for k in range(400))
    started = time.perf_counter()
    result = score_trace(RATIO, sides + r" The answer is $\boxed{\frac{7}{25}}$.", gold=RATIO_GOLD, config=REWARD)
    assert not result.supported
    assert time.perf_counter() - started < 5.0


def test_the_answer_dressed_in_latex_earns_no_more_than_dressed_in_arithmetic():
    """Multiplying the answer's terms by a problem quantity is a trick the exact evaluator already reads (and the
    derivation rules weigh); written so that only the LaTeX check reads it, it earns no more."""
    arithmetic = r"\[ \frac{7 \cdot 2}{25 \cdot 2} = \frac{7}{25} \] The answer is $\boxed{\frac{7}{25}}$."
    latex_only = r"\[ \frac{7 \cdot 2}{25 \cdot 2} + 0 \cdot x = \frac{7}{25} \] The answer is $\boxed{\frac{7}{25}}$."
    dressed, plain = _pay(RATIO, latex_only, RATIO_GOLD), _pay(RATIO, arithmetic, RATIO_GOLD)
    assert dressed[0] <= plain[0] and dressed[1] <= plain[1]
    assert dressed[0] < 1.0  # the factor that cancels leaves it hollow: no full pay


SPRINTS = ("James decides to run 3 sprints 3 times a week. He runs 60 meters each sprint. How many total meters does "
           "he run a week?")


def test_powers_of_a_basic_constant_spell_no_answer():
    """The exponent of a number is a quantity, not notation: ``2^{5} + 2^{6} + ...`` from unreached exponents would
    spell any answer from a problem number and the basic constant 2."""
    spelled = "$$ 60 + 2^{5} + 2^{6} + 2^{7} + 2^{8} $$\n$$ = 540 $$\n#### 540"
    assert _pay(SPRINTS, spelled, "540") == (0.5, 0.0)
    powered = "$$ 60 \\cdot 3^{2} $$\n$$ = 540 $$\n#### 540"  # exponent 2: a basic constant, reached
    assert _pay(SPRINTS, powered, "540")[0] == 1.0


@pytest.mark.parametrize("answer, spelled", [
    ("67", "$$ 60 + 2^{0} + 2^{1} + 2^{2} $$\n$$ = 67 $$\n#### 67"),
    ("71", "$$ 60 + 2^{0} + 2^{1} + 2^{3} $$\n$$ = 71 $$\n#### 71"),
])
def test_powers_added_from_nothing_are_free_constants(answer, spelled):
    """Powers of basic constants added as terms (``2^{0} + 2^{1} + 2^{3}``: 1 + 2 + 8) spell a number in binary from
    nothing: several in one side are no start from the problem, as several free constants in an equation are none."""
    assert _pay(SPRINTS, spelled, answer) == (0.5, 0.0)


ABSOLUTE = ("If $|x+5|-|3x-6|=0$, find the largest possible value of $x$. Express your answer as an improper "
            "fraction.")


def test_the_problems_equation_restated_then_the_answer_is_no_derivation():
    """A root chosen right after the problem's equation, restated once or twice, writes no step of solving it."""
    for restated in (r"We have \[ |x+5|-|3x-6|=0 \] \[ x = \frac{11}{2} \]",
                     r"We have \[ |x+5|-|3x-6|=0 \] so \[ |x+5|-|3x-6|=0 \] \[ x = \frac{11}{2} \]"):
        assert _pay(ABSOLUTE, restated + r" The answer is $\boxed{\frac{11}{2}}$.", r"\frac{11}{2}")[0] == 0.5


KYLAR = ("Kylar went to the store to buy glasses for his new apartment. One glass costs $5, but every second glass "
         "costs only 60% of the price. Kylar wants to buy 16 glasses. How much does he need to pay for them?")
KYLAR_GOLD = ("The discount price of one glass is 60/100 * 5 = $3.\nIf every second glass is cheaper, that means Kylar "
              "is going to buy 16 / 2 = 8 cheaper glasses.\nSo for the cheaper glasses, Kylar is going to pay 8 * 3 = "
              "$24.\nAnd for the regular-priced glasses, Kylar will pay 8 * 5 = $40.\nSo in total Kylar needs to pay "
              "24 + 40 = $64 for the glasses he wants to buy.\n#### 64")
KYLAR_CONSTANT_AS_RATIO = "$$ 60 + \\frac{4 x}{x} = 64 $$\n#### 64"
"""A free 4 written as a ratio of a letter: the equation reader does not pay ``60 + 4 = 64`` (a free count added to a
problem number), the LaTeX start side does (its free-constant rule reads added terms, not a constant inside a
fraction whose letters cancel). Recorded in tests/rewards/test_known_attacks.py."""
