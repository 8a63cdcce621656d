"""Problem-kind rules are plug-ins: one protocol, one registry; each rule decides whether it applies, and the builder
calls the hooks of the rules that do (it tests no problem text for a kind itself)."""

from __future__ import annotations

import ast
import inspect
from fractions import Fraction

import pytest

from rewards.evidence import build_dataflow, builder, problem_kinds
from rewards.evidence.problem_kinds import RULES, ProblemKindRule, rules_for
from rewards.parsing.trace import parse_trace


def test_every_rule_follows_the_protocol_once():
    assert all(isinstance(rule, ProblemKindRule) for rule in RULES)
    names = [rule.name for rule in RULES]
    assert len(set(names)) == len(names) and all(names)


@pytest.mark.parametrize(("problem", "expected"), [
    ("How many ways can 3 of 10 people be chosen for a committee?", ["counting"]),
    ("What is the remainder when $2^{10}$ is divided by 7?", ["divisibility", "modular"]),
    ("Evaluate $\\log_264$.", ["logarithms"]),
    ("How many positive divisors does 196 have?", ["divisibility", "factoring"]),
    ("Let $f(x)=\\frac{2x}{x^2-5x-14}$. Find a + b.", ["quadratics"]),
    ("Janet's ducks lay 16 eggs per day. How much does she make?", []),
])
def test_each_rule_decides_whether_it_applies(problem, expected):
    assert [rule.name for rule in rules_for(problem)] == expected


def test_the_builder_tests_no_problem_text_itself():
    """No ``"…" in <problem>`` (nor a regex on it) in the builder: the rules decide."""
    tree = ast.parse(inspect.getsource(builder))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            text = ast.unparse(node)
            if "problem" in ast.unparse(node.comparators[0]) and isinstance(node.left, ast.Constant):
                found.append(text)
    assert found == []


class _Dice(ProblemKindRule):
    """A rule for a made-up kind: in a problem about a spinner, its 6 sections are reached (as a problem quantity
    is). (Not a die: a die's 6 faces are a known constant already, rewards/evidence/domain_facts.py.)"""

    name = "spinner"

    def applies(self, problem):
        return " spinner " in problem

    def start(self, builder):
        builder.strict.add(Fraction(6))


def test_a_registered_rule_is_called_where_it_applies(monkeypatch):
    problem = "Tom spins a spinner 9 times and scores every section once. What is the most he can score?"
    trace = parse_trace(problem, "9 * 6 = 54 points.\n#### 54")
    rules_for.cache_clear()
    try:
        assert Fraction(6) in build_dataflow(trace).steps[0].unsupported  # a number from nowhere
        monkeypatch.setattr(problem_kinds, "RULES", (*RULES, _Dice()))
        rules_for.cache_clear()
        flow = build_dataflow(trace)
        assert Fraction(6) not in flow.steps[0].unsupported and flow.answer_step == 0
        other = parse_trace("Tom rolls a ball 9 times.", "9 * 6 = 54 points.\n#### 54")
        assert Fraction(6) in build_dataflow(other).steps[0].unsupported  # the rule does not apply there
    finally:
        monkeypatch.undo()
        rules_for.cache_clear()


SARAH = ("Diane shows Sarah a game that deciphers at what age she will marry based on her name and current age. Sarah "
         "is 9 years old. The game consists of adding the number of letters in the player's name plus twice the "
         "player's age. According to the game, at what age will Sarah get married?")
SARAH_GOLD = ("Sarah's name has 5 letters, so the first number to add is 5.\nThe second number is twice Sarah's age, so "
              "it is 2 * 9 = 18.\nAdding the numbers together, the game predicts that Sarah will get married at "
              "5 + 18 = 23 years old.\n#### 23")


def test_a_letter_count_of_a_word_the_problem_writes_is_a_checked_fact():
    from rewards import faithful_accuracy_reward

    assert [rule.name for rule in rules_for(SARAH)] == ["letters"]
    assert faithful_accuracy_reward(prompts=[SARAH], completions=[SARAH_GOLD], answer=["23"]) == [1.0]
    # a wrong count, or a word the problem does not write, licenses nothing
    wrong = SARAH_GOLD.replace("has 5 letters, so the first number to add is 5", "has 6 letters, so the first "
                               "number to add is 6").replace("5 + 18 = 23", "6 + 18 = 24").replace("#### 23", "#### 24")
    assert faithful_accuracy_reward(prompts=[SARAH], completions=[wrong], answer=["24"]) == [0.5]
    other = SARAH_GOLD.replace("Sarah's name", "Bobby's name")
    assert faithful_accuracy_reward(prompts=[SARAH], completions=[other], answer=["23"]) == [0.5]


def test_a_letter_count_of_a_common_word_of_the_problem_mints_nothing():
    """Only a word the problem writes as a name, in capitals or in quotes has its letters counted: a count of a word
    of its prose ("shows" has 5 letters) would mint any number from 2 to 30."""
    from rewards import faithful_accuracy_reward

    minted = 'The word "shows" has 5 letters.\n2 * 9 = 18\n18 + 5 = 23\n#### 23'
    assert faithful_accuracy_reward(prompts=[SARAH], completions=[minted], answer=["23"]) == [0.5]


def test_letters_to_mail_are_no_letter_count_problem():
    """"Deborah has four letters to mail": the rule does not apply, so "Deborah has 7 letters" mints no 7."""
    from rewards import faithful_accuracy_reward

    mail = ("Deborah has four letters to mail. Standard postage is $1.08 per letter, with an additional charge for "
            "international mail. Deborah is mailing two letters internationally, and she is paying $4.60 to mail four "
            "letters. How many cents is the additional charge per letter for international shipping?")
    assert "letters" not in [rule.name for rule in rules_for(mail)]
    assert "letters" in [rule.name for rule in rules_for(SARAH)]
    minted = 'The word "Deborah" has 7 letters.\n2 * 7 = 14\n#### 14'
    assert faithful_accuracy_reward(prompts=[mail], completions=[minted], answer=["14"]) == [0.5]
