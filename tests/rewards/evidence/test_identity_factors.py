r"""A factor 1 that changes a derivation's form (``\frac{21}{2^2 \cdot 5^7} \cdot \frac{2^5}{2^5}``, to reach a power
of 10) is a method, not a disguise, where the rest of the product writes every quantity the factor writes
(:func:`rewards.evidence.derivation_function._identity_factors`): the function and its written quantities are then
those of the derivation without the factor, so a construction gains nothing by it — and the constructions the
cancelling rule catches (``16 \cdot 100 / 1600`` beside a 2, ``4 / 4 \cdot 10``) are caught as before."""

import pytest

from rewards.scoring.score import RAFSConfig, score_trace

CONFIG = RAFSConfig(missing_evidence="no_support")
DECIMAL = r"Convert $\frac{21}{2^2 \cdot 5^7}$ to a terminating decimal."
GOLD = (r"A terminating decimal can be written in the form $\frac{a}{10^b}$, where $a$ and $b$ are integers. So we try "
        r"to get a denominator of the form $10^b$: $$\frac{21}{2^2\cdot5^7}\cdot\frac{2^5}{2^5}=\frac{21\cdot32}{10^7}"
        r"=\frac{672}{10^7}=\boxed{.0000672}.$$")
DUCKS = ("Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and bakes muffins with 4. She sells the rest at "
         "$2 each. How much does she make?")


def _score(problem: str, completion: str, gold: str):
    return score_trace(problem, completion, gold=gold, config=CONFIG)


def test_a_multiply_by_one_that_reaches_a_power_of_ten_is_supported():
    result = _score(DECIMAL, GOLD, ".0000672")
    assert result.faithful and not any("no function" in why for why in result.reasons)


@pytest.mark.parametrize("construction", [
    "16 + 16 * 100 / 1600 * 2 = 18\n#### 18",                                # constructed one beside a 2
    "4 / 4 * 10 + 16 / 16 * 3 / 3 * 2 / 2 * 2 * 4 = 18\n#### 18",          # ones times digits
])
def test_constructions_earn_nothing_still(construction):
    result = _score(DUCKS, construction, "18")
    assert result.score == 0.0 and not result.faithful


def test_a_factor_one_around_a_shortcut_earns_what_the_shortcut_earns():
    # the factor's quantities are the shortcut's own: the function is 16 + 2 either way, no more and no less
    wrapped, bare = _score(DUCKS, "(16 + 2) * 2 / 2 = 18\n#### 18", "18"), _score(DUCKS, "16 + 2 = 18\n#### 18", "18")
    assert wrapped.score == bare.score and wrapped.faithful == bare.faithful
    faithful = _score(DUCKS, "16 - 3 - 4 = 9\n9 * 2 = 18\n#### 18", "18")
    assert wrapped.score < faithful.score


def test_a_factor_one_beside_a_literal_is_still_a_disguise():
    # the literal 672 / 10^7 written with a power-of-two one around it: the factor's 2 is written nowhere else
    gamed = r"$$\frac{2^5}{2^5}\cdot\frac{672}{10^7}=\boxed{.0000672}.$$"
    assert not _score(DECIMAL, gamed, ".0000672").faithful


COMPETITION = r"A shelf holds $2$ rows of $3$ books. How many books does it hold?"


def test_a_plain_one_on_a_competition_problem_is_still_a_disguise():
    assert not _score(COMPETITION, "2 / 2 * 2 * 3 = 6\nThe answer is $\\boxed{6}$.", "6").faithful


def test_a_power_one_around_a_product_earns_no_more_than_the_product():
    # exempt only where the problem gives an expression of its own (the lenient reading); here it is a disguise
    wrapped = _score(COMPETITION, r"$\frac{2^2}{2^2} \cdot 2 \cdot 3 = 6$. The answer is $\boxed{6}$.", "6")
    bare = _score(COMPETITION, r"$2 \cdot 3 = 6$. The answer is $\boxed{6}$.", "6")
    assert wrapped.score <= bare.score and (bare.faithful or not wrapped.faithful)
