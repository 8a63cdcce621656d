"""A chain that goes on after the answer and concludes another value disowns the answer (no support in a reward),
unless it chose among candidates; "at least", "at most", "more than" qualify quantities and choose nothing."""

import pytest

from rewards.checks.arithmetic import check_text
from rewards.scoring.score import RAFSConfig, score_trace

REWARD = RAFSConfig(missing_evidence="no_support")
SHOES = ("Rookie police officers have to buy duty shoes at the full price of $85, but officers who have served at least "
         "a year get a 20% discount. Officers who have served at least three years get an additional 25% off the "
         "discounted price. How much does an officer who has served at least three years have to pay for shoes?")
GOLD = ("Cops that served a year pay $85 * 0.2 = $17 less.\nCops that served a year pay $85 - $17 = $68.\n"
        "Cops that served at least 3 years get a $68 * 0.25 = $17 discount.\n"
        "Cops that served at least 3 years pay $68 - $17 = $51 for shoes.\n")


def test_a_second_chain_to_another_value_disowns_the_answer_even_when_it_says_at_least():
    double = GOLD + "Alternatively, we can compute it this way:\n" + GOLD.replace("$68 - $17 = $51", "$68 + 17 = $85")
    gold = score_trace(SHOES, GOLD + "#### 51", config=REWARD)
    gamed = score_trace(SHOES, double + "#### 51", config=REWARD)
    assert gold.supported and not gamed.supported and gamed.score < gold.score
    assert any("concludes 85" in r for r in gamed.reasons)


def test_a_real_choice_among_candidates_keeps_the_answer():
    problem = "Shop A sells a pen for $3 and shop B for $5. How much is the cheapest pen for 4 pens at shop A?"
    chosen = "At shop A 4 * 3 = 12 dollars.\nAt shop B 4 * 5 = 20 dollars.\nThe cheapest is 12.\n#### 12"
    assert score_trace(problem, chosen, config=REWARD).supported


@pytest.mark.parametrize("text, ok", [("So, their bikes cost $356 - 712 = $-356 in total.", True),
                                      ("He owes $-5 + 3 = $-2 now.", True), ("It is $356 - 712 = $-300.", False)])
def test_a_negative_amount_after_a_currency_sign_is_read(text, ok):
    assert [c.ok for c in check_text(text)] == [ok]
