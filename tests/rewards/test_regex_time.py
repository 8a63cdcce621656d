"""No regular expression may backtrack catastrophically on model output: a slow completion stalls a training step.

Each case below is an attack found by the regex audit: a prefix that matches, a blank run pumped, and a tail that
makes the match fail, on the public function that scans it. Before the fix each took over a second (the size chosen
so; most grew as the cube or fourth power of the blank run: seconds to hours at 4,000 characters); now
each takes about a millisecond. The fixes are possessive blanks (``\\s*+``): a blank run that no later piece of the
pattern can start with is never re-split among the ``\\s*`` around it, which changes no match.

The last test scans every public text reader over a fixed list of pumped shapes (blank, tab and newline runs in the
places the patterns allow them) at 2,000-4,000 characters: before the fix the slowest took over 15 s (a sum then
blanks), six others 0.1-0.2 s; now each takes under 15 ms (the bound is generous for slow CI machines).
"""

from __future__ import annotations

import string
import time
from fractions import Fraction

import pytest

from rewards.checks.answers import sympy_safe
from rewards.checks.arithmetic.extraction import extract_equations, read_connectives
from rewards.checks.arithmetic.literals import parse_number
from rewards.checks.claims.numberfacts import fact_checks
from rewards.checks.claims.substitution import definitions_and_claims
from rewards.parsing.trace import extract_final_answer, other_stated_answers, parse_trace

PROBLEM = "Ann has 3 apples and buys 4 bags of 2 apples. How many apples does she have?"
BOUND = 1.0  # seconds of process time; each case now takes about 1 ms on one core


def _seconds(fn, *args) -> float:
    start = time.process_time()
    fn(*args)
    return time.process_time() - start


FINDINGS = {
    # name: (public function, argument, what the unfixed code took on one core)
    # _CONNECTIVE_RESULT: "\s*\$?\s*&?\s*" before the connective (and ",?\s*" inside it) re-split the blank run
    "connective after a blank run": (read_connectives, "1+2" + " " * 300 + " so x"),  # 10 s
    "connective after a tab run": (read_connectives, "1 + 2" + " \t" * 150 + "so x"),  # 8.9 s
    # _ATOM's unit word "(?>\s*/?\s*[A-Za-z]{2,12})": both \s* over one run, retried from the chain
    "unit word after a blank run": (read_connectives, "1 + 2 apples" + " " * 300 + "x so 3"),  # 8.4 s
    # quadratic ones, at a size past the 4,000 characters a step holds (read_connectives takes any text): the prefilter
    # ",?\s*(?:hence|so|...)" rescanned a blank run from each start; _WORD_RESULT's "\s*(?P<conn>,?\s*..." likewise
    "prefilter on a long blank run": (read_connectives, " " * 16_000 + "x"),  # 2.2 s (4,000 blanks: 0.22 s)
    "operator words then a long blank run": (read_connectives, "1 plus 2" + " " * 8_000 + " so x"),  # 1.9 s
    # _ANSWER_PHRASE: "\s*[:\s]*\$?\s*" after "the answer is" (cubic)
    "answer phrase then blanks": (extract_final_answer, "The answer is" + " " * 600 + "x"),  # 4.0 s
    # literals._NUMBER_TOKEN: five \s* before the digits (fourth power)
    "number token of blanks": (parse_number, " " * 200 + "x"),  # 3.9 s
    # answers._BIG_EXPONENT: "\s*\{?\s*\(?\s*" after a caret (cubic)
    "caret then blanks": (sympy_safe, "^" + " " * 800 + "x"),  # 1.8 s
    # substitution._CONDITION_AFTER: six \s* over the 60 characters after each definition (45 ms each)
    "definitions each followed by blanks": (
        lambda text: definitions_and_claims([text]),
        "".join(f"{c}(x) = x + 1" + " " * 59 for c in string.ascii_letters)),  # 3,692 characters: 1.8 s
}


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_an_audited_attack_is_read_in_linear_time(name):
    fn, arg = FINDINGS[name]
    assert _seconds(fn, arg) < BOUND, name


def test_a_fixed_pattern_still_reads_what_it_read():
    # the possessive blanks change no match: the forms each fixed pattern exists for are still read
    assert read_connectives("She sells 16 - 3 - 4 → 10 eggs.") == "She sells 16 - 3 - 4 = 10 eggs."
    assert read_connectives("4 hours  +  8 hours ,  so 12 hours") == "4 hours  +  8 hours =     12 hours"
    assert read_connectives("1 plus 2   equals 3") == "1 +    2   =      3"
    assert extract_final_answer("So the answer is :  $ 42.") == ("$ 42", "phrase")
    assert parse_number(" $ -  1,234.5  % ") == parse_number("-1234.5%") == Fraction(-2469, 200)
    assert not sympy_safe("2^ { ( 100") and sympy_safe("2^3")
    assert [c.ok for c in fact_checks("The units digit of 3  ^  { 5 } is : 7.")] == [False]  # 3^5 = 243


SHAPES = {  # pumped to about 4,000 characters
    "blanks": lambda n: " " * n + "x",
    "tabs and blanks": lambda n: " \t" * (n // 2) + "x",
    "newlines": lambda n: "\n" * n + "x",
    "sum then blanks": lambda n: "1 + 2" + " " * n + "so x",
    "words sum then blanks": lambda n: "1 plus 2 apples" + " " * n + "x equals 3",
    "answer then blanks": lambda n: "The final answer is:" + " " * n + "$ x",
    "hashes then blanks": lambda n: "3 + 4 = 7\n####" + " " * n + "7" + " " * n + "x",
    "boxed with blanks": lambda n: "\\boxed{" + " " * n + "7" + " " * n + "x}",
    "dollar blanks": lambda n: "x = $" + " " * n + "-" + " " * n + "$ 5",
    "fraction with blanks": lambda n: "x = -" + " " * n + "\\frac{ 1 }" + " " * n + "{2} !",
    "slash with blanks": lambda n: "x = 3" + " " * n + "/" + " " * n + "4 !",
    "power with blanks": lambda n: "2" + " " * n + "^" + " " * n + "{x} = 3",
    "last digit with blanks": lambda n: "the units digit of 7" + " " * n + "^" + " " * n + "x is 3",
    "definition then blanks": lambda n: "f(x) = x + 1" + " " * n + ", x",
    "percent then blanks": lambda n: "50" + " " * n + "%" + " " * n + "x = 3",
    "plus chain with blank operators": lambda n: "1" + "     +     2" * (n // 12) + " equals x",
}
READERS = {
    "read_connectives": read_connectives,
    "extract_equations": extract_equations,
    "parse_trace": lambda text: parse_trace(PROBLEM, text),
    "extract_final_answer": extract_final_answer,
    "other_stated_answers": lambda text: other_stated_answers(text, "5"),
    "fact_checks": fact_checks,
    "definitions_and_claims": lambda text: definitions_and_claims(text.split("\n"), PROBLEM),
}


def test_every_text_reader_scans_pumped_shapes_quickly():
    slow = {}
    for shape, make in SHAPES.items():
        text = make(1950)[:4000]
        for reader, fn in READERS.items():
            took = _seconds(fn, text)
            if took >= BOUND:
                slow[(shape, reader)] = round(took, 2)
    assert not slow, slow
