"""A sentence that states one operation's operand and result but not its sign is read as that operation
(rewards.evidence.implicit): GSM8K gold solutions write "With the 4 that were already ripe, there will be 14"."""

from __future__ import annotations

from fractions import Fraction

from rewards import faithful_accuracy_reward, score_trace
from rewards.evidence import build_dataflow
from rewards.evidence.implicit import implicit_operation
from rewards.parsing.trace import parse_trace

PEACHES = ("A bowl of fruit holds 18 peaches. Four of the peaches are ripe and two more ripen every day, but on the "
           "third day three are eaten. How many more ripe peaches than unripe peaches are in the bowl after five days?")
PEACHES_GOLD = ("In 5 days, 2 * 5 = 10 peaches will ripen.\n"
                "With the 4 that were already ripe, there will be 14 peaches that have ripened.\n"
                "Three were eaten, so there will be 14 - 3 = 11 ripe peaches left.\n"
                "There are 18 - 14 = 4 unripe peaches left.\n"
                "Therefore, there will be 11 - 4 = 7 more ripe peaches than unripe peaches in the bowl after five "
                "days.\n#### 7")
MARBLES = ("Reggie is playing marbles with his friend. His friend arrives with 100 marbles. Each game, they bet ten "
           "marbles and whoever wins gets to keep all the marbles. After 9 games, Reggie has 90 marbles. How many "
           "games has he lost?")
MARBLES_GOLD = ("Reggie has lost 10 marbles because 100 - 90 = 10\n"
                "Since each game was worth 10 marbles, Reggie has lost 1 game\n#### 1")


def _fa(problem: str, text: str, answer: str) -> float | None:
    return faithful_accuracy_reward(prompts=[problem], completions=[text], answer=[answer])[0]


def test_the_gold_form_is_supported():
    assert _fa(PEACHES, PEACHES_GOLD, "7") == 1.0
    assert score_trace(PEACHES, PEACHES_GOLD, mode="reward").supported
    assert _fa(MARBLES, MARBLES_GOLD, "1") == 0.5  # "lost 1 game": a free constant as the result is not read
    trace = parse_trace(PEACHES, PEACHES_GOLD)
    flow = build_dataflow(trace)
    assert flow.steps[1].wordy == [(("10 + 4",), Fraction(14))] and flow.steps[1].stray == []


def test_one_operation_only_on_the_last_derived_value_and_a_reached_number_of_the_sentence():
    assert implicit_operation(Fraction(14), Fraction(10), [Fraction(4)]) == ("10 + 4", Fraction(14))
    assert implicit_operation(Fraction(6), Fraction(10), [Fraction(4)]) == ("10 - 4", Fraction(6))
    assert implicit_operation(Fraction(15), Fraction(10), [Fraction(4)]) is None  # no single operation
    assert implicit_operation(Fraction(4), Fraction(2), [Fraction(2)]) is None  # 2 + 2 and 2 * 2: ambiguous
    assert implicit_operation(Fraction(14), None, [Fraction(4)]) is None  # nothing derived before
    # the value a sentence states is still a stray claim where no such operation gives it
    text = "In 5 days, 2 * 5 = 10 peaches will ripen.\nWith the 4 that were already ripe, there will be 15.\n#### 15"
    flow = build_dataflow(parse_trace(PEACHES, text))
    assert flow.steps[1].stray == [Fraction(15)] and flow.steps[1].wordy == []
    assert _fa(PEACHES, text, "15") == 0.5


def test_a_hidden_value_with_no_operand_in_its_sentence_stays_unsupported():
    # the hidden slip: "Janet sells 11 eggs" states the wrong value with no operand beside it
    problem = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast and bakes muffins with four. She sells "
               "the remainder at $2 per egg. How much does she make?")
    hidden = "Janet sells 11 duck eggs a day.\nShe makes 9 * 2 = 18 dollars.\n#### 18"
    flow = build_dataflow(parse_trace(problem, hidden))
    assert flow.steps[0].stray == [Fraction(11)] and flow.steps[0].wordy == []
    # a free constant written beside the value is no operand ("10 more" after 16 - 3 - 4 = 9 does not derive 19)
    text = "16 - 3 - 4 = 9 eggs.\nWith 10 more she has 19 eggs.\n#### 19"
    flow = build_dataflow(parse_trace(problem, text))
    assert flow.steps[1].wordy == [] and flow.steps[1].stray == [Fraction(19)]
    # an item of a list is no result ("multiples of 4, 6, and 10" after 60 was derived: not 60 / 6)
    problem = "Pots get a balloon every 4, 6 and 10 pots. Which pots get three?"
    text = "4 * 15 = 60\nThese pots are multiples of 4, 6, and 10, so every 60th pot.\n#### 60"
    flow = build_dataflow(parse_trace(problem, text))
    assert flow.steps[1].wordy == []


def test_an_operand_of_written_arithmetic_is_no_stated_result():
    """"Total = 3 + 5 + 4 Total amount of candy = 12 pounds": the 4 equals the answer (12 / 3) but is an operand
    of the sum the sentence writes, not a result it states."""
    problem = ("Robert has 3 pounds of candy. Cindy has 5 pounds of candy. Aaron has 4 pounds of candy. If they pool "
               "their candy and share it equally, how much will each have?")
    text = ("Total amount of candy = 3 + 5 + 4 Total amount of candy = 12 pounds.\n"
            "Amount of candy per person = 12 / 3 Amount of candy per person = 4 pounds.\n#### 4")
    flow = build_dataflow(parse_trace(problem, text))
    assert all("12 / 3" != sides[0] for sides, _ in flow.steps[0].wordy)
    assert Fraction(4) not in flow.steps[0].produced


DOGS = ("John takes care of 10 dogs.  Each dog takes .5 hours a day to walk and take care of their business.  How "
        "many hours a week does he spend taking care of dogs?")


def test_an_operand_made_up_from_the_answer_taints_the_implicit_result():
    """The operand's own step is a step the result depends on: "35 - 5 = 30" takes the answer as given, so "with
    the 30 more, there will be 35" derives nothing, as "5 + 30 = 35" written out does not."""
    circular = ("35 - 5 = 30.\nFirst, 10 * .5 = 5.\nWith the 30 more, there will be 35 in all.\n#### 35")
    assert _fa(DOGS, circular, "35") == 0.5
    assert _fa(DOGS, circular.replace("With the 30 more, there will be 35 in all.", "5 + 30 = 35."), "35") == 0.5
    assert _fa(DOGS, "He spends 10 * .5 = 5 hours per day.\nThat means he spends 5 * 7 = 35 hours per week.\n#### 35",
               "35") == 1.0
