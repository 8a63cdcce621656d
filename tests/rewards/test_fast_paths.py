"""The scorer's fast paths must give exactly what the slow reading gives.

Each speed-up skips work where a cheap test shows it cannot find anything (a regex with re.I run as a plain regex on
lower-cased ASCII text, a pattern run only where a word it needs occurs). These tests run both readings over real
GSM8K and MATH-500 text plus hand-written cases in odd capitalisation, and require the same result.
"""

from __future__ import annotations

import json
import re
from fractions import Fraction
from pathlib import Path

import pytest

from gold_texts import gold_lines

from rewards.checks.arithmetic import numbers_in
from rewards.checks.arithmetic import scanning
from rewards.checks.claims import sequences
from rewards.parsing.trace import parse_trace
from rewards.scoring import revisions
import rewards.evidence as E
from rewards.evidence import lexicon, propagation, quantities, wordy
from rewards.evidence.problem_kinds import counting, factoring, modular

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"

ODD_CASES = [
    "WAIT, that's WRONG: 3 + 4 = 7.", "Hmm. Let Me Recheck that.", "No, it is 12.", "Oops, I Made A Mistake.",
    "This Doesn't Work, Let's Try A Different approach.", "Scratch That.", "NEVER MIND the fee.",
    "C(5, 2) = 10", "c (5,2) = 10", "P_3 = 6", "The MEAN is 4.", "1 + 2 + \\cdots + 10 = 55", "Average: 7",
    "She works Monday To Friday.", "From JANUARY to July she saves.", "Two And A Half hours", "4 1/2 pounds",
    "every Sixth customer", "the WEEKEND", "A Pound and a HALF", "Twenty-One eggs and a Dozen", "ONE hundred",
    "It falls 5 meters per Second.", "The second car", "x2 + H2O", "no number words here at all",
]


def _corpus(limit: int = 400) -> list[str]:
    return [*ODD_CASES, *gold_lines(limit, limit // 4)]


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return _corpus()


def test_revision_cues_folded_match_re_i(corpus):
    for pattern in (revisions.RETRACT, revisions.ABANDON):
        for text in corpus:
            for start, head in ((0, 240), (0, 0), (min(5, len(text)), 0)):
                end = min(len(text), start + head) if head else len(text)
                slow = pattern.search(text, start, end) is not None
                assert revisions._cue_at(pattern, text, start, head) == slow, (pattern.pattern[:30], text)
    assert revisions._cue_at(revisions.RETRACT, "WAIT, that's WRONG")
    assert revisions._cue_at(revisions.ABANDON, "This Doesn't Work")


def test_sequence_prefilter_folded_matches_re_i(corpus):
    for text in corpus:
        assert sequences._may_hold_a_claim(text) == (sequences._PREFILTER.search(text) is not None), text
    assert sequences._may_hold_a_claim("c (5,2) = 10") and sequences._may_hold_a_claim("The MEAN is 4.")


def test_number_word_prefilter_changes_nothing(corpus, monkeypatch):
    fast = [numbers_in(text) for text in corpus]

    class _Never(frozenset):
        def isdisjoint(self, other):  # the slow reading: always scan for number words
            return False

    monkeypatch.setattr(scanning, "_NUMBER_WORDS", _Never())
    assert [numbers_in(text) for text in corpus] == fast
    assert [q for q, _ in numbers_in("Twenty-One eggs and a Dozen")] == [21, 12]


def test_problem_pattern_prefilters_change_nothing(corpus):
    # a non-ASCII character at the end sends problem_numbers down the path that runs every pattern
    for text in corpus:
        assert E.problem_numbers(text) == E.problem_numbers(text + " \u00e9"), text
    assert {5, 7, Fraction(5, 2), 6, Fraction(1, 6), 2} <= set(
        E.problem_numbers("Monday To Friday, JANUARY to July, Two And A Half hours, every Sixth one, "
                                 "the WEEKEND"))


def test_unit_factors_read_once_per_problem_match_the_joined_text():
    rows = [json.loads(line) for line in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()[:300]]
    cases = [(r["question"], r["answer"]) for r in rows] + [
        ("A ball falls for a", "second time it falls 10 meters.\n#### 10"),  # "a\nsecond": the joined text's rule
        ("The angle is 30 degrees.", "180 - 30 = 150\n#### 150"),
    ]
    for problem, solution in cases:
        trace = parse_trace(problem, solution)
        joined = trace.problem + "\n" + trace.text
        expected = lexicon.unit_constants(joined) - (lexicon.ANGLES - lexicon.unit_constants(trace.problem))
        assert E.build_dataflow(trace).units == expected, problem
    assert not re.search(r"[A-Z]", "".join(lexicon.unit_words("Three MILES and a Dozen")))


def _parser_reading(text: str):
    """What evaluate_ex gives with the plain-arithmetic fast path turned off."""
    from rewards.checks.arithmetic import parser

    saved = parser._PLAIN
    parser._PLAIN = re.compile(r"(?!)")  # matches nothing: every text goes to the tokenizer and the parser
    try:
        return parser.evaluate_ex(text)
    finally:
        parser._PLAIN = saved


def test_plain_arithmetic_fast_path_matches_the_parser():
    import random

    from rewards.checks.arithmetic import parser

    rng = random.Random(0)
    atoms = ["0", "7", "12", "0.5", ".25", "3.0", "1000000", "9" * 31, "(", ")", "+", "-", "*", "/", " ", "\n",
             "**", "..", "007"]
    texts = ["", " ", "5", "(5)", "2(3)", "(2)(3)", "-5", "5 - -3", "1/0", "4/(2-2)", "5.", "1.5.2", "1 .5",
             "((((((((((((((((((1))))))))))))))))))", "2 ** 3", "(13/60)*51", "101-(101/2)-30-15", "16 *  52 ",
             "3 / 4 / 5", "2 - 3 - 4", "10 + (181/10)", "2" * 29 + " * " + "3" * 29, "(" * 45 + "1" + ")" * 45]
    texts += ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 9))) for _ in range(3000)]
    for text in texts:
        assert parser.evaluate_ex(text) == _parser_reading(text), repr(text)
    assert parser.evaluate("(13/60)*51") == _parser_reading("(13/60)*51")
    assert parser.evaluate_ex("2(3)") == _parser_reading("2(3)")  # implicit multiplication: the parser's reading


def test_plain_arithmetic_fast_path_leaves_no_cyclic_garbage():
    # the fast path's recursive descent once built nested functions that referenced each other: a reference cycle per
    # call, which only Python's cyclic collector frees (most of what made it run on the scorer's hot path)
    import gc

    from rewards.checks.arithmetic import parser

    texts = ["(13/60)*51", "101-(101/2)-30-15", "2 - 3 - 4", "((1+2)*3)/4", "1/0", "5", "16 *  52 ", "(1))"]
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        values = [parser.evaluate_ex(text) for _ in range(50) for text in texts]
        assert gc.collect() == 0
    finally:
        if enabled:
            gc.enable()
    assert values[0] == _parser_reading("(13/60)*51") and values[4] == _parser_reading("1/0")


def test_gsm8k_scoring_leaves_no_cyclic_garbage():
    # garbage in reference cycles costs a full walk of every tracked object to free; the scorer's GSM8K path makes none
    import gc

    from rewards.scoring.score import score_trace

    rows = [json.loads(line) for line in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()[:60]]
    for row in rows[:5]:
        score_trace(row["question"], row["answer"])  # imports and one-time set-up
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        results = [score_trace(row["question"], row["answer"]) for row in rows]
        found = gc.collect()
    finally:
        if enabled:
            gc.enable()
    assert found == 0, f"{found} objects in reference cycles after scoring {len(rows)} GSM8K solutions"
    assert sum(r.status == "accept" for r in results) > len(rows) // 2


def test_step_equations_cache_keeps_every_field_but_the_tokens(corpus, monkeypatch):
    from rewards.checks import equations

    fresh_reading = equations.step_equations.__wrapped__  # uncached
    kept = [fresh_reading(text) for text in corpus]
    monkeypatch.setattr(equations, "_without_tokens", lambda eq, check: (eq, check))  # the old cache content
    full = [fresh_reading(text) for text in corpus]
    assert sum(len(pairs) for pairs in full) > 500
    for text, short, long in zip(corpus, kept, full):
        assert len(short) == len(long), text
        for (eq, check), (eq_full, check_full) in zip(short, long):
            assert eq == eq_full and repr(eq) == repr(eq_full), text  # sides, values, span, source, relations
            assert check == check_full and repr(check) == repr(check_full), text  # ok, detail, pairs, variable
            assert check.equation is eq and eq._toks == (), text
            assert eq_full._toks or not eq_full.sides


def test_step_numbers_read_once_match_the_cached_reading(corpus):
    for text in corpus + ["15x2=30", "3×4 = 12", "x2 + H2O"]:
        assert quantities.step_numbers(text) == quantities.read_numbers(text), text


def test_stated_results_read_without_parsing_strings_match_fraction():
    import random
    from fractions import Fraction

    def slow(text: str, produced: list) -> bool:  # the reading before: Fraction(str) of each "= number"
        for match in wordy._STATED_RESULT.finditer(text, 0, wordy.MAX_WORDY_CHARS):
            if Fraction(match.group(1).replace(",", "")) not in produced:
                return True
        return False

    rng = random.Random(1)
    atoms = ["=", " = ", "$", "1", "0", ",", "000", ".", "5", "25", "9" * 31, "1,234.5", ".75", " x ", "12.50"]
    texts = _corpus(200) + ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 10))) for _ in range(3000)]
    for text in texts:
        numbers = [v for v, _ in quantities.read_numbers(text)]
        for produced in ([], numbers, numbers[::2]):
            assert wordy.results_unexplained(text, produced) == slow(text, produced), (text, produced)


def test_plain_binary_fast_path_matches_the_parser():
    # "a op b" with two numerals skips the descent: every pairing of literals and operators, as the parser reads it
    from rewards.checks.arithmetic import parser

    literals = ["0", "00", "1", "7", "12", "0.5", ".25", "3.0", "10.000", "1000000", "9" * 30, "9" * 31, "2" * 29,
                "123456789012345678901234567890"]
    texts = [f"{a}{space}{op}{space2}{b}" for a in literals for b in literals for op in "+-*/"
             for space, space2 in (("", ""), (" ", " "), ("  ", ""))]
    texts += ["2 ** 3", "2 // 3", "(2) * 3", "2 * (3)", "1 2 3", "4 ( 5", "4 ) 5", "-2 * 3", "2 * -3"]
    for text in texts:
        assert parser.evaluate_ex(text) == _parser_reading(text), repr(text)
    assert parser.evaluate("48/2").exact == 24 and parser.evaluate_ex("5 / 0") == _parser_reading("5 / 0")


def test_unit_conversions_asked_one_by_one_match_the_set_of_products():
    import random
    from fractions import Fraction

    rng = random.Random(2)
    for text in _corpus(150):
        pnums = E.problem_numbers(text)
        units = lexicon.unit_constants(text)
        converted = lexicon.Converted(pnums, units)
        products = lexicon._conversions(pnums, units) if units else frozenset()
        asked = list(products) + list(pnums) + [Fraction(rng.randint(-50, 5000), rng.choice([1, 1, 2, 3, 4, 60]))
                                                 for _ in range(40)] + [Fraction(0)]
        for value in asked:
            assert (value in converted) == (value in products), (text, value)


def _fuzzed(alphabet: str, count: int = 4000, seed: int = 0) -> list[str]:
    import random

    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14))) for _ in range(count)]


MODULAR_CASES = [
    "What is the REMAINDER when 7 is divided by 3?", "Find 5^{-1} \\pmod{11}.", "Compute 9 \\bmod 4.", "x MODULO 7",
    "The Units Digit of 3^5", "the ONES digit", "the last TWO digits of 7^9", "Write 25 in Base 3.",
    "a basement of 4 m",
    "Is 12 divisible by 4?", "congruences", "a residue class", "the Inverse of 3", "a model train costs $5",
    "Kelvin \u212a mod", "\u017fome mod", "It costs $4 and he buys 3.", "",
]


def test_modular_problem_prefilter_matches_re_i(corpus):
    texts = [*corpus, *MODULAR_CASES, *_fuzzed("modMODulremaindigtbasBASE \\p{}İſ\u212a", 6000)]
    for text in texts:
        assert modular.modular_problem(text) == (modular._MODULAR_PROBLEM.search(text) is not None), text
    assert modular.modular_problem("The Units Digit of 3^5") and not modular.modular_problem("a model train")


def test_claim_prefilters_in_one_scan_match_the_word_loops(corpus):
    from rewards.checks.claims import congruences, numberfacts

    texts = [*corpus, "<<48/2=24>>24", "3 < 4", "a<<b", "5 >= 2", "x \\le 3", "\\leqslant", "\\letter", "7 ≤ 9",
             "<", "><", "Is 9 a PRIME?", "GCD(4, 6)", "7 ≡ 2",
             *_fuzzed("<>≤≥\\lgeqtsan =12mdGCDprime≡_{}rR,;", 8000)]
    for text in texts:
        low = text.lower()
        slow = (any(w in low for w in numberfacts._PREFILTER_WORDS)
                or numberfacts._PREFILTER_SYMBOLS.search(text) is not None)
        assert numberfacts._may_hold_a_fact(text) == slow, text
        slow = (any(w in low for w in congruences._PREFILTER_WORDS)
                or congruences._PREFILTER_PATTERNS.search(text) is not None)
        assert congruences._may_hold_a_claim(text) == slow, text
    assert numberfacts._may_hold_a_fact("3 < 4") and not numberfacts._may_hold_a_fact("<<3*4=12>>12")


def test_function_claim_prefilter_matches_the_lookbehind_pattern(corpus):
    from rewards.checks.claims import substitution

    texts = [*corpus, "f(3) = 5", "\\sin(x)", "ab(2)", "(f (2))", "x(", "\\f(", "_g(1)", "3f(2)",
             *_fuzzed("fgxX(\\ )\n\t1_a", 8000)]
    for text in texts:
        assert substitution._may_define_or_claim(text) == (substitution._PREFILTER.search(text) is not None), text
    assert substitution._may_define_or_claim("f(3) = 5") and not substitution._may_define_or_claim("\\sin(x)")


def test_sequence_prefilter_split_matches_re_i_on_fuzzed_text():
    texts = [*_fuzzed("cCpP_( \t\n.\\ldotsumMEANavgrMODE…", 12000), "C (5, 2)", "p_3", "\\cdots", "\\Sum", "x..."]
    for text in texts:
        assert sequences._may_hold_a_claim(text) == (sequences._PREFILTER.search(text) is not None), text


JOINT_MARKERS = re.compile(r"\\(?:boxed|fbox)\b|^[ \t]*####", re.M)  # the one pattern _stated_markers replaced


def test_answer_marker_and_phrase_scans_match_the_joint_patterns(corpus):
    from rewards.parsing import trace

    pieces = ["\\boxed{3}", "\\fbox{4}", "####", " #### 5", "\n", " ", "\t", "answer", "ANSWER", "Final Answer:",
              "is", " 12", "$7$", "\\(8\\)", "=", "The Answer is 36.", "\\boxed 7", "\\boxedx", "İ", "\u212a"]
    import random

    rng = random.Random(1)
    texts = [*corpus, *("".join(rng.choice(pieces) for _ in range(rng.randint(0, 12))) for _ in range(6000))]
    texts.append("\\boxed{1} " * 300 + "\n#### 2")  # past MAX_STATED_SCAN markers
    for text in texts:
        joint = list(JOINT_MARKERS.finditer(text))[:trace.MAX_STATED_SCAN]
        split = trace._stated_markers(text)
        assert [(m.span(), m.group()) for m in split] == [(m.span(), m.group()) for m in joint], text
        if text.isascii():
            slow = [(m.span(), m.span(1)) for m in trace._ANSWER_PHRASE.finditer(text)]
            assert [(m.span(), m.span(1)) for m in trace._ANSWER_PHRASE_FOLDED.finditer(text.lower())] == slow, text
    assert trace.other_stated_answers("The Answer is 36.\n#### 24", "24") == (("36", ".\n"),)


# ------------------------------------------------------------------------------------------------------------------
# Extraction side: the token-level plain-arithmetic path of eval_tokens and the connective
# prefilter of read_connectives, each compared with the slow reading on real GSM8K / MATH-500 text and fuzzed input.


def _slow_eval_tokens(toks, pct_points=False):
    """eval_tokens with its plain-token path turned off: every token list goes to the parser."""
    from rewards.checks.arithmetic import parser

    saved = parser._plain_tokens
    parser._plain_tokens = lambda toks: False
    try:
        return parser.eval_tokens(toks, pct_points)
    finally:
        parser._plain_tokens = saved


def _token_lists(texts, limit: int = 9):
    """Every run of up to ``limit`` consecutive tokens of each text (plain and math mode), as the sides extraction
    and the algebra checks hand to eval_tokens."""
    from rewards.checks.arithmetic.tokens import tokenize

    for text in texts:
        for latex, bang in ((False, False), (False, True), (True, False)):
            toks = []
            tokenize(text, 0, len(text), latex, toks, bang)
            for a in range(len(toks)):
                for b in range(a + 1, min(len(toks), a + limit) + 1):
                    yield toks[a:b]


def test_plain_token_path_of_eval_tokens_matches_the_parser(corpus):
    import random

    from rewards.checks.arithmetic import parser
    from rewards.checks.arithmetic.tokens import Token

    texts = [line for line in corpus if any(ch.isdigit() for ch in line)][:300]
    texts += ["48/2 = <<48/2=24>>24", "100 - 50 - 30 - 15", "(13/60)*51", "2(3)", "(2)(3)", "-5 + 3", "1/0",
              "4/(2-2)", "[3+4]*2", "((((((((((((((((((1))))))))))))))))))", "2 ** 3", "5!3!", "3 x 4", "9" * 31 + "+1",
              "2" * 29 + " * " + "3" * 29, "40/80*100%", "$3.50/hour", "1,200/4", "$10 x 2", "5 x $6", "$720 + $270",
              "11 x", "x 5", "4 * x",
              "$", "5 $", "$ $ 3", "3 x (2)", "3 x -2", "$-3", "($4)", "2 x x 3", "0.5 * .25", "7 -- 2", "(5"]
    seen = 0
    for toks in _token_lists(texts):
        for pct in (False, True):
            assert parser.eval_tokens(toks, pct) == _slow_eval_tokens(toks, pct), (toks, pct)
        seen += parser._plain_tokens(toks)
    assert seen > 2000  # the path ran on many real sides, not only on the hand-written ones
    # fuzzed token lists, the kinds algebra's substitution builds among them (Token("n", "3", 0, 0, False))
    rng = random.Random(3)
    atoms = [("n", "0"), ("n", "7"), ("n", "12"), ("n", "0.5"), ("n", ".25"), ("n", "9" * 31), ("n", "007"),
             ("o", "+"), ("o", "-"), ("o", "*"), ("o", "/"), ("o", "^"), ("(", "("), ("(", "["), (")", ")"),
             (")", "]"), ("%", "%"), ("!", "!"), ("t", "("), ("#", ""), ("|", "\n"), ("w", "cm"), ("x", "x"),
             ("x", "x"), ("$", "$"), ("$", "$"), ("{", "{"), ("c", "frac")]
    for _ in range(12000):
        toks = [Token(*rng.choice(atoms), 0, 0, rng.random() < 0.5) for _ in range(rng.randint(0, 9))]
        assert parser.eval_tokens(toks) == _slow_eval_tokens(toks), toks
    deep = [Token("(", "(", 0, 0, False)] * 45 + [Token("n", "1", 0, 0, False)] + [Token(")", ")", 0, 0, False)] * 45
    assert parser.eval_tokens(deep) == _slow_eval_tokens(deep)
    half = [Token("n", "1", 0, 0, True), Token("o", "/", 0, 0, False), Token("n", "2", 0, 0, False)]
    assert parser.eval_tokens(half).exact == parser.evaluate("1/2").exact == 0.5


def test_connective_prefilter_changes_no_reading(corpus, monkeypatch):
    import random

    from rewards.checks.arithmetic import extraction

    pieces = ["16 - 3 - 4", " → ", "->", " ⟶ ", "=>", "⇒", "⟹", "↦", " \\to ", "\\longRightarrow",
              "\\Rightarrow",
              "\\implies", "\\mapsto", ":=", " equals ", " makes ", " gives ", " giving ", " yields ", " comes to ",
              " comes out to ", " works out to ", " leads to ", " results in ", " becomes ", " is equal to ",
              " for a total of ", ", hence ", ", so ", " thus ", " i.e., ", ", which is ", " which equals ",
              " which gives us ", " which makes ", " so that's ", " that's ", " that is ", "10", "$24", ".5", "4/7",
              "\\frac{8}{17}", "\\dfrac{1}{2}", " plus ", " minus ", " times ", " divided by ", "$", " ", "\n",
              "(5-2)", "x", " eggs", " more than", "&", ",", "=", " = 6"]
    connectives, operands = pieces[1:39], ["16 - 3 - 4", "4 * 5", "$3 + $2", "(5-2)", "9 \\cdot 6", "2 plus 1"]
    rng = random.Random(4)
    texts = [*corpus, *("".join(rng.choice(pieces) for _ in range(rng.randint(1, 10))) for _ in range(8000))]
    texts += [rng.choice(["", "So ", "and 3 + "]) + rng.choice(operands) + rng.choice(["", ",", " $", " &"])
              + rng.choice(connectives) + rng.choice(["", "$", " "]) + rng.choice(pieces[39:45] + ["x", "y"])
              + rng.choice(["", " eggs", " more than 4", ".", " = 7"]) for _ in range(6000)]
    fast = [extraction.read_connectives(text) for text in texts]
    monkeypatch.setattr(extraction, "_RESULT_AFTER_CONNECTIVE", re.compile(""))  # finds a match in every text
    slow = [extraction.read_connectives(text) for text in texts]
    assert fast == slow
    assert sum(a != b for a, b in zip(slow, texts)) > 800  # the fuzz reads many connectives: the test has teeth
    assert extraction.read_connectives("She sells 16 - 3 - 4 → 10 eggs.") == "She sells 16 - 3 - 4 = 10 eggs."


def test_number_scan_matches_finditer(corpus, monkeypatch):
    # numbers_in reads with _NUM_FIRST (a leading [\d.] class, checks/test_extraction_fast_paths.py); _NUM_SCAN's finditer must give
    # the same numbers and spans
    import random

    from rewards.checks.arithmetic.literals import num_value

    rng = random.Random(5)
    alphabet = "0123456789.,x \\cdotimesdivpi{}!-$%٣\n"
    texts = [*corpus, *_fuzzed(alphabet, 6000), "x2 + H2O", "10\\cdot9", "1,\\!000", "1{,}000", "a.5", "1.5.2",
             "3\\times4\\div2\\pi5", "٣ apples", "12,345,678.9", "1,23", "." * 50 + "1", "9" * 40 + ".5",
             *(" ".join(rng.choice(["1", ".5", "2.", "x3", "a1.2", "\\cdot7"]) for _ in range(12)) for _ in range(500))]
    fast = [scanning.numbers_in(text) for text in texts]
    monkeypatch.setattr(scanning, "_LETTERS", re.compile(r"(?!)"))  # no word numbers: the digit literals alone
    for text in texts:
        digits = [(num_value(m.group(1).replace(",", "").replace("\\!", "").replace("{}", "")), m.span(1))
                  for m in scanning._NUM_SCAN.finditer(text)]
        assert scanning.numbers_in(text) == [d for d in digits if d[0] is not None], text
    assert [q for q, _ in fast[texts.index("x2 + H2O")]] == []


def test_plain_side_in_one_match_matches_the_parser():
    # evaluate_ex reads a lone numeral or "a op b" with one fullmatch (_PLAIN_SIMPLE) before the token loop
    from rewards.checks.arithmetic import parser

    texts = ["12", " 12 ", "\n12\t", ".5", "5.", "1.5.2", "007", "9" * 31, "48/2", " 1.5 * .5 ", "3 /0", "2--3",
             "1 2", "2*  *3", "4 -\n2", "10.25+ .75", "1 . 5", "(48)/2", "48/2/3", ". 5", "3+", "+3"]
    for text in texts:
        assert parser.evaluate_ex(text) == _parser_reading(text), repr(text)
    assert sum(parser._PLAIN_SIMPLE.fullmatch(text) is not None for text in texts) >= 10


def test_connective_prefilter_follows_the_connective_hint():
    # _RESULT_AFTER_CONNECTIVE spells out _CONNECTIVE_HINT's forms (flat, for speed): the same prefilter derived from
    # the live hint (word boundaries, the optional ", " and the lookahead dropped) must find the same texts, so a
    # form added to the hint and not to the prefilter fails here
    import random

    from rewards.checks.arithmetic import extraction

    hint = extraction._CONNECTIVE_HINT.pattern
    core = hint.replace(r"\b", "").replace(r",?\s*(?:", "(?:").replace(r"(?=\s)", "")
    derived = re.compile("(?:" + core + r")\s*\$?(?:\.?\d|\\[dt]?frac)")
    forms = [re.sub(r"\(\?:|\)|\?|\\b|\(\?=\\s\)|,\?\\s\*", "", alt).replace("\\\\", "\\").replace("\\.", ".")
             for alt in re.split(r"\|", hint)]
    forms = [form for form in forms if form]
    assert len(forms) > 30 and "equals" in forms and "for a total of" in forms
    rng = random.Random(7)
    tails = [" 5", "5", " $5", "$ .5", " \\frac{1}{2}", " \\dfrac", " x", "", " 5.", "\n5", " - 5"]
    texts = [rng.choice(["", "3 + 4", "so", "x"]) + rng.choice([" ", ", ", ""]) + form + rng.choice(tails)
             for form in forms for _ in range(40)]
    texts += _fuzzed("".join(sorted(set("".join(forms)))) + " 5$.", 6000)
    assert sum(derived.search(text) is not None for text in texts) > 1000
    for text in texts:
        assert (extraction._RESULT_AFTER_CONNECTIVE.search(text) is None) == (derived.search(text) is None), text

# Scoring side: int keys for whole values, reused derivations, early exits. Each fast path against the
# reading it replaced, written out here.


def _fractions(seed: int, count: int = 3000) -> list:
    import random
    from fractions import Fraction

    rng = random.Random(seed)
    out = [Fraction(0), Fraction(1), Fraction(-1), Fraction(100), Fraction(-300), Fraction(1, 100), Fraction(7, 100)]
    for _ in range(count):
        out.append(Fraction(rng.randint(-20000, 20000), rng.choice([1, 1, 1, 2, 3, 4, 5, 8, 20, 25, 60, 100, 400])))
    return out


def test_int_keys_equal_and_hash_like_their_fractions():
    for value in _fractions(0):
        key = quantities.value_key(value)
        assert key == value and hash(key) == hash(value) and (type(key) is int) == (value.denominator == 1)
        assert {value: 1}.get(key) == 1 and key in {value} and value in {key}


def _derived_slow(known, value, constants=E.COMMON_CONSTANTS) -> bool:
    if value in known or value in constants or -value in known:
        return True
    if value * 100 in known or value / 100 in known:
        return True
    return value != 0 and 1 / value in known


def test_derived_with_int_keys_matches_fraction_arithmetic():
    import random

    rng = random.Random(1)
    values = _fractions(1)
    for _ in range(120):
        known = set(rng.sample(values, 40))
        keyed = {quantities.value_key(v) for v in known}  # build_dataflow adds whole values as ints
        for value in rng.sample(values, 60) + [v * 100 for v in rng.sample(sorted(known), 5)] + \
                [v / 100 for v in rng.sample(sorted(known), 5)] + [1 / v for v in known if v][:5] + \
                [-v for v in rng.sample(sorted(known), 5)]:
            for constants in (E.COMMON_CONSTANTS, E.BASIC_CONSTANTS):
                slow = _derived_slow(known, value, constants)
                assert quantities.grounded(known, value, constants) == slow, (value, sorted(known))
                assert quantities.grounded(keyed, value, constants) == slow, (value, sorted(known))


def test_unit_conversions_with_int_arithmetic_match_the_set_of_products_for_any_units():
    import random
    from fractions import Fraction

    rng = random.Random(3)
    values = _fractions(3, 400)
    for _ in range(200):
        pnums = frozenset(rng.sample(values, 12))
        units = frozenset(rng.sample([Fraction(u) for u in (2, 3, 4, 7, 12, 16, 60, 100, 1000, 5280)]
                                     + [Fraction(1, 2), Fraction(3, 2), Fraction(22, 7)], 4))
        converted = lexicon.Converted(pnums, units)
        products = lexicon._conversions(pnums, units)
        for value in [*rng.sample(sorted(products), 10), *rng.sample(values, 30)]:
            assert (value in converted) == (value in products), (value, sorted(units))


def _substitute_slow(side, changed, first_only=frozenset(), keep=None):
    spans, seen = [], set()
    numbers = quantities.read_numbers(side)
    for value, span in numbers:
        if value in changed:
            if value in seen and value in first_only and value != keep and len(numbers) == 2:
                continue
            spans.append((span, changed[value]))
            seen.add(value)
    if not spans:
        return None
    text = side
    for (start, end), new in sorted(spans, reverse=True):
        text = text[:start] + propagation._literal(new) + text[end:]
    return text


def test_substitution_by_int_keys_matches_fraction_keys(corpus):
    import random
    from fractions import Fraction

    rng = random.Random(4)
    sides = [*corpus[:600], "60/60", "2 * 60 / 60", "60 - 60", "1/2 + 3", "0.5 * 4", "12 + 21 + 27"]
    for side in sides:
        values = [v for v, _ in quantities.read_numbers(side)]
        if not values:
            assert propagation._substitute(side, {Fraction(1): Fraction(2)}) is None
            continue
        for _ in range(3):
            picked = rng.sample(values, rng.randint(1, len(values)))
            changed = {v: v + rng.choice([1, 2, Fraction(1, 3)]) for v in picked}
            keyed = {quantities.value_key(v): new for v, new in changed.items()}  # what _propagate builds
            first_only = frozenset(rng.sample(values, 1))
            keep = rng.choice([None, picked[0]])
            slow = _substitute_slow(side, changed, first_only, keep)
            assert propagation._substitute(side, changed, first_only, keep) == slow, side
            assert propagation._substitute(side, keyed, first_only, keep) == slow, side


def test_number_keys_follow_the_numbers(corpus):
    for text in corpus[:800]:
        assert quantities.number_keys(text) == tuple(v for v, _ in quantities.read_numbers(text))
        assert [type(k) is int for k in quantities.number_keys(text)] == [
            v.denominator == 1 for v, _ in quantities.read_numbers(text)]


def _solve_linear_slow(left, right, var=None):
    from rewards.checks import solving
    from rewards.checks.identities import value_at

    def exact(side, x):
        v = value_at(side, var, x)
        return v.exact if v is not None and v.is_exact else None

    if not any(c.isalpha() for c in left + right):
        return None
    var = var or solving.equation_unknown(left, right)
    if var is None or left.strip() == var or right.strip() == var:
        return None
    values = []
    for x in solving._POINTS:
        lv, rv = exact(left, x), exact(right, x)
        if lv is None or rv is None:
            return None
        values.append(lv - rv)
    slope = values[1] - values[0]
    if slope == 0 or any(f != values[0] + slope * x for f, x in zip(values, solving._POINTS)):
        return None
    return -values[0] / slope


def _equation_pairs(corpus) -> list[tuple[str, str]]:
    from rewards.checks.equations import step_equations

    pairs = [("4 * x + 600", "10000"), ("2p/5", "(p+600)/4"), ("x^2", "16"), ("x", "18"), ("3x + 2", "3x + 5"),
             ("0x + 4", "4"), ("x + 0.25x", "1.25x"), ("(2x-10)-8", "2x-18"), ("2x", "10"), ("5", "5"),
             ("\\frac{x}{3}", "7"), ("x/0", "3"), ("1/x", "2"), ("2^x", "8"), ("\\text{cm} x + 1", "5")]
    for text in corpus:
        for eq, _check in step_equations(text):
            pairs.extend(zip(eq.sides, eq.sides[1:]))
    return pairs


def test_linear_solving_with_early_exits_matches_every_point(corpus):
    from rewards.checks import solving
    from rewards.checks.identities import value_at

    def identity_slow(left, right):
        if not any(c.isalpha() for c in left + right):
            return False
        var = solving.equation_unknown(left, right)
        if var is None or solving.single_variable(left) != var or solving.single_variable(right) != var:
            return False
        for x in solving._POINTS:
            lv, rv = value_at(left, var, x), value_at(right, var, x)
            lv = lv.exact if lv is not None and lv.is_exact else None
            rv = rv.exact if rv is not None and rv.is_exact else None
            if lv is None or rv is None or lv != rv:
                return False
        return True

    pairs = _equation_pairs(corpus)
    letters = [(a, b) for a, b in pairs if any(c.isalpha() for c in a + b)]
    assert len(letters) > 100
    for left, right in pairs:
        assert solving.solve_linear.__wrapped__(left, right) == _solve_linear_slow(left, right), (left, right)
        assert solving.is_identity.__wrapped__(left, right) == identity_slow(left, right), (left, right)
    assert solving.solve_linear.__wrapped__("4 * x + 600", "10000") == 2350


def test_text_at_is_the_textual_substitution_value_at_evaluates():
    from fractions import Fraction

    from rewards.checks.identities import TEXT_MARKUP, text_at

    for side in ["2x + x^2", "\\text{x} x", "ax + x", "\\sqrt{x}", "x_1 + x", "e^x", "12", ""]:
        for var in "xae":
            x = Fraction(-5, 3)
            slow = re.sub(rf"(?<![\\A-Za-z]){re.escape(var)}(?![A-Za-z])", f"({x.numerator}/{x.denominator})",
                          TEXT_MARKUP.sub(" ", side))
            assert text_at(side, var, x) == slow, (side, var)


def test_problem_pattern_gates_hold_every_match(corpus):
    # each gate is a substring every match of its pattern holds (on ASCII text, lower-cased): a gate that is False
    # means the pattern finds nothing
    texts = [*corpus, *_fuzzed("monday tufriwekscholCOMPANIONfrdsbtheaug 1/23/4", 6000, seed=5),
             "Suzie and 5 of her Friends", "Tom AND his 3 BROTHERS", "from Monday TO Saturday", "4 1/2 pounds",
             "7 3/4 miles", "WORK DAYS", "school days", "a Workday", "co-workers and her 2 co-workers"]
    for text in texts:
        if not text.isascii():
            continue
        low = text.lower()
        if lexicon._COMPANIONS.search(text):
            assert any(w in low for w in lexicon._COMPANION_WORDS), text
        if lexicon._WEEKDAYS.search(text):
            assert any(w in low for w in lexicon._WEEKDAY_WORDS), text
        if lexicon._DAY_RANGE.search(text):
            assert any(d in low for d in lexicon._DAYS), text
        if lexicon._AND_A_HALF.search(text):
            assert "1/" in text or "3/4" in text or "half" in low or "quarter" in low or "third" in low, text
        if "%" not in text and "percent" not in low:
            assert not any(text[end:end + 8].lstrip().lower().startswith("percent")
                           for _v, (_s, end) in quantities.read_numbers(text))
        assert [w.lower() for w in lexicon._ORDINAL_WORDS.findall(text)] == \
            lexicon._ORDINAL_WORDS_LOWER.findall(low), text
    assert Fraction(6) in E.problem_numbers("Suzie and 5 of her friends go.")


def test_propagation_plan_reusing_the_built_derivations_matches_a_fresh_plan():
    from rewards.evidence import build_dataflow
    from rewards.evidence.propagation import _propagation_plan

    rows = [json.loads(line) for line in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()[:150]]
    rows += [{"question": r["problem"], "answer": r["solution"]}
             for r in map(json.loads, (DATA / "math500" / "test.jsonl").read_text().splitlines()[:60])]
    reused = 0
    for row in rows:
        trace = parse_trace(row["question"], row["answer"])
        flow = build_dataflow(trace)
        reused += len(flow._derivations[1])
        plan = _propagation_plan(trace, flow)
        flow._plan, flow._derivations = None, None
        assert _propagation_plan(trace, flow) == plan, row["question"][:60]
    assert reused > 300


def test_scoring_with_the_derivations_passed_matches_reading_them_again():
    from rewards.scoring import score
    from rewards.evidence import answer_path, build_dataflow, input_counterfactuals

    rows = [json.loads(line) for line in (DATA / "gsm8k" / "train.jsonl").read_text().splitlines()[:120]]
    for row in rows:
        trace = parse_trace(row["question"], row["answer"])
        flow = build_dataflow(trace)
        derivations = E.answer_derivations(flow)
        assert input_counterfactuals(trace, flow) == input_counterfactuals(trace, flow, path=answer_path(flow))
        for strict in (True, False):
            assert score._ungrounded_on_answer_path(flow, strict) == \
                score._ungrounded_on_answer_path(flow, strict, derivations)
    assert modular.modular_problem("Find the remainder of 7 divided by 3.") == \
        modular.modular_problem.__wrapped__("Find the remainder of 7 divided by 3.")


def _cue_texts(corpus) -> list[str]:
    import random

    rng = random.Random(6)
    pieces = ["wait", "Actually", "hmmm", "whoops", "hold on", "on second thought", "not quite", "scratch that",
              "correction", "that's wrong", "that is not right", "That was incorrect", "that isn't a mistake",
              "that is an error", "that is not correct", "I made a slip", "we made an error", "mistake",
              "miscalculated", "mis-computed", "miscomputed", "typo", "let me re-check", "Let's double-check",
              "let me check again", "let's verify", "let me redo", "let me re-do", "let's recompute",
              "let me recalculate", "let me re-calculate", "let's recount", "let me reexamine", "let's reconsider",
              "let me correct", "No, it is", "ok. no.", "Yes! No!", "no: 5", "doesn't work", "does not be right",
              "didn't make sense", "won't be correct", "will not work", "can't work", "cannot be right",
              "isn't the right approach", "is not a good way", "not the correct method", "wrong approach",
              "wrong method", "dead end", "let me start over", "I'll start again", "I will restart",
              "I should begin again", "let's go back", "let me try a different", "let's try another",
              "I'll try an other", "let me try something else", "let me try again", "let's approach this differently",
              "I will do it another way", "let me do this properly", "never mind", "nevermind", "forget that",
              "abandon", "this approach is wrong", "that method was flawed", "this idea is not",
              "so", "the", "3 + 4 = 7", ".", " ", "\n", "'s"]
    texts = [*corpus, *ODD_CASES]
    for _ in range(3000):
        texts.append("".join(rng.choice(pieces) + rng.choice([" ", "", ". ", "\n", "x"]) for _ in range(4)))
    return texts


def test_cue_words_hold_every_cue(corpus):
    for text in _cue_texts(corpus):
        if not text.isascii():
            continue
        low = text.lower()
        for pattern in (revisions.RETRACT, revisions.ABANDON):
            if revisions._FOLDED[pattern].search(low):
                assert any(w in low for w in revisions._CUE_WORDS[pattern]), (pattern.pattern[:20], text)
            for start, head in ((0, 240), (0, 0), (min(3, len(text)), 7)):
                end = min(len(text), start + head) if head else len(text)
                assert revisions._cue_at(pattern, text, start, head) == \
                    (pattern.search(text, start, end) is not None), text


def test_claim_gate_substring_tests_hold_every_match(corpus):
    # each cheap test is True wherever the regex it guards matches, so the gates read the same steps
    from rewards.checks.claims import assignments, congruences, continuations, numberfacts

    texts = [*corpus,
             *_fuzzed("<>≤≥≦≧\\lgeqt 5=", 4000, seed=7), *_fuzzed("_{}05 Rr\\,;textmarh{\u00a0\u0663\n", 4000, seed=8),
             *_fuzzed("xX= \t\u2003$-(.5\\ab", 4000, seed=9), *_fuzzed("\\[]$=&approx \\\\", 4000, seed=10),
             "<<48/2=24>>24", "3 < 5", "a<b", "<<<", "x \\le 5", "x \\geq 2", "17 R 3", "17\\,r", "5\\text{ R}",
             "x_1 = 2", "x = 5", "x\u2003= -3", "$y$ = $4$", "\\[ x \\] \\[ = 5 \\]", "$$ \\approx 3 $$"]
    words = continuations._WORD_HINT_WORDS
    fact_words, congruence_words = (re.compile("|".join(map(re.escape, m._PREFILTER_WORDS))) for m in (numberfacts,
                                                                                                         congruences))
    for text in texts:
        low = text.lower()
        assert numberfacts._may_hold_a_fact(text) == (fact_words.search(low) is not None
                                                       or numberfacts._PREFILTER_SCAN.search(text) is not None), text
        assert congruences._may_hold_a_claim(text) == (congruence_words.search(low) is not None
                                                       or congruences._PREFILTER_PATTERNS.search(text) is not None), text
        if assignments._HINT.search(text):
            assert assignments._may_assign(text), text
        if continuations._CONT_HINT.search(text):
            assert "\\[" in text or "$$" in text or "\\\\" in text, text
        assert any(w in text for w in words) == (continuations._WORD_HINT.search(text) is not None), text
    assert numberfacts._may_compare("3 < 5") and not numberfacts._may_compare("<<48/2=24>>24")
    assert assignments._may_assign("x = 5") and not assignments._may_assign("<<48/2=24>>24")



def test_divided_differences_in_integers_match_fraction_arithmetic():
    import random
    from fractions import Fraction

    from rewards.checks.algebra import lines, points
    from rewards.checks.polynomials import trim

    def slow(xs, ys):
        n, dd = len(xs), list(ys)
        for j in range(1, n):
            for i in range(n - 1, j - 1, -1):
                dd[i] = (dd[i] - dd[i - 1]) / (xs[i] - xs[i - j])
        if any(c != 0 for c in dd[lines.MAX_DEGREE + 1:]):
            return None
        deg = max((k for k, c in enumerate(dd) if c != 0), default=-1)
        coef = [Fraction(0)] * (deg + 1)
        for i in range(deg, -1, -1):
            shifted = [Fraction(0)] + coef[:-1]
            coef = [shifted[k] - xs[i] * coef[k] for k in range(deg + 1)]
            coef[0] += dd[i]
        return trim(coef)

    rng = random.Random(12)
    for trial in range(120):
        xs = []
        while len(xs) < 12:
            x = points.draw(rng)
            if x not in xs:
                xs.append(x)
        degree = trial % 9  # up to MAX_DEGREE + 2: some fit no polynomial of low degree
        poly = [Fraction(rng.randint(-50, 50), rng.randint(1, 9)) for _ in range(degree + 1)]
        ys = [sum(c * x ** k for k, c in enumerate(poly)) for x in xs]
        if trial % 5 == 0:
            ys[rng.randrange(12)] += Fraction(1, 7)  # a value off the polynomial
        assert lines.interpolate(xs, ys) == slow(xs, ys), (xs, ys)
    assert lines.interpolate([Fraction(1), Fraction(2), Fraction(3)], [Fraction(2), Fraction(4), Fraction(6)]) \
        == [0, 2]


# ------------------------------------------------------------------------------- the equivalence checker
# the claim gates' word lists as unrolled substring tests, and congruences' R prefilter found from its R: each must
# agree with the list / the pattern it replaces on real GSM8K / MATH-500 text and fuzzed strings.


def test_unrolled_claim_gate_words_match_their_lists(corpus):
    from rewards.checks.claims import congruences, continuations, coordinates, numberfacts

    texts = [*corpus, *_fuzzed("modequivcongruentremaindergoes intogcdlcmfhCOMMON≡≢ ", 8000, seed=21),
             *_fuzzed("divisdmultiplefactorgtprimecomposMID ", 8000, seed=22),
             *_fuzzed("simplifyreduces tobecomequalsevaluat ", 8000, seed=23),
             *_fuzzed("midpointdistanceslopeMDS, ", 6000, seed=24),
             *_fuzzed(".meanaverg dic_p_MODE…", 8000, seed=25),
             "x MOD 3", "a common factor", "2 goes into 6", "it simplifies to", "evaluates to 4", "the MIDPOINT (1, 2)",
             "the mean is 4", "C_5", "p_2", "1...3", "the Mode", ""]
    hits = [0] * 5
    for text in texts:
        low = text.lower()
        for i, (fast, words, arg) in enumerate((
                (congruences._has_prefilter_word, congruences._PREFILTER_WORDS, low),
                (numberfacts._has_prefilter_word, numberfacts._PREFILTER_WORDS, low),
                (continuations._has_word_hint, continuations._WORD_HINT_WORDS, text),
                (sequences._has_prefilter_word, sequences._PREFILTER_WORDS, low))):
            slow = any(w in arg for w in words)
            assert fast(arg) == slow, (words, text)
            hits[i] += slow
        assert coordinates._may_hold_a_claim(text) == (
            "matrix" in text or ("," in text if any(w in low for w in coordinates._WORDS)
                                 else "=" in text and coordinates._OBJECT_HINT.search(text) is not None)), text
        hits[4] += coordinates._may_hold_a_claim(text)
    assert "mod" in congruences._PREFILTER_WORDS and congruences._has_prefilter_word("x mod 3")
    assert min(hits) > 20, hits  # every list is hit often: the comparison has teeth


def test_remainder_r_prefilter_found_from_its_r_matches_the_pattern(corpus):
    from rewards.checks.claims import congruences

    texts = [*corpus, *_fuzzed("Rr 5\t\n,;{}a_\u00a0\u0663.", 20000, seed=26),
             "17 R 3", "17\\,r", "5\\text{ R}", "4R", "4Rs", "r", "R", " r", "{r}", "x;R.", "\u0663R", "\u00a0r!"]
    hits = 0
    for text in texts:
        slow = congruences._PREFILTER_R.search(text) is not None
        assert (congruences._PREFILTER_R_FIRST.search(text) is not None) == slow, text
        hits += slow
    assert hits > 500, hits


def _equivalence_eager(steps):
    """rewards.checks.claims.equivalence.check_trace as it was before its fast path: the previous step's last equation
    checked whole at the end of every step, not when a pair with the next step needs it."""
    from rewards.checks.claims import equivalence as m

    out, budget, prev = [], m.MAX_PAIRS, None
    for k, step in enumerate(steps):
        if not isinstance(step, str) or len(step) > m.MAX_STEP_CHARS or "=" not in step:
            prev = None
            continue
        eqs = m._equations(step)
        if prev is not None and eqs and budget > 0:
            p_step, p_eq, p_eqs = prev
            e2 = eqs[0]
            if m._gap_ok(p_step[p_eq.span[1]:] + "\n" + step[:e2.span[0]]) and m._whole(step, e2.span):
                budget -= 1
                detail = m.pair_check(p_eq, e2, p_eqs[:-1])
                if detail:
                    out.append((k, detail))
                    prev = None
                    continue
        prev = None
        for j in range(1, len(eqs)):
            e1, e2 = eqs[j - 1], eqs[j]
            if budget <= 0:
                return out
            if e2.span[0] < e1.span[1] or not m._gap_ok(step[e1.span[1]:e2.span[0]]):
                continue
            if not (m._whole(step, e1.span) and m._whole(step, e2.span)):
                continue
            budget -= 1
            detail = m.pair_check(e1, e2, eqs[:j - 1])
            if detail:
                out.append((k, detail))
                break
        if eqs and m._whole(step, eqs[-1].span):
            prev = (step, eqs[-1], eqs)
    return out


def test_equivalence_checks_the_previous_equation_whole_only_when_used(corpus):
    import random

    from rewards.checks.claims import equivalence

    rng = random.Random(27)
    lines = [t for t in corpus if "=" in t]
    pieces = ["x^2 = 4x", "x = 4", "2x + 3 = 7", "2x = 4", "x = 2", "x - 1 = 0", "x^2 - 1 = 0", "(x-1)^2 = 0",
              "$x^2 = 9$", "$x = 3$", "3x = 12 + x", "so", "Dividing both sides by x,", "subtract 3:", "hence",
              "\\[ x^2 = 2x \\]", "\\[ x = 2 \\]", "then 5 \\cdot", "+ 1", "y = 2x", "x + 1 = 5 +", "Thus"]
    traces = [lines[i:i + rng.randint(1, 6)] for i in range(0, len(lines), 3)]
    traces += [[" ".join(rng.choice(pieces) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 5))]
               for _ in range(3000)]
    traces += [["2x + 3 = 11", "so x = 5"], ["2x + 3 = 11 +", "so x = 5"], ["x^2 = 4x", "so x = 4"]]
    found = 0
    for steps in traces:
        fast = [(k, c.detail) for k, c in equivalence.check_trace(steps)]
        assert fast == _equivalence_eager(steps), steps
        found += bool(fast)
    assert equivalence.check_trace(["2x + 3 = 11", "so x = 5"])  # a slip across two steps
    assert not equivalence.check_trace(["2x + 3 = 11 +", "so x = 5"])  # the previous equation continues: not whole
    assert found > 50, found


def test_sequence_region_prefilters_hold_every_match(corpus):
    # a step the substring tests turn away holds no match of the pattern, so the region reader it skips finds nothing
    import random

    rng = random.Random(28)
    atoms = ["1", "2", "10", "+", " + ", "...", "…", "\\ldots", "\\cdots", "\\dots", "\\dotsb", ".", "\\frac{1}{2}",
             "2^3", " ", "C", "P", "c", "(", ")", ",", "5", "_", "^", "{", "}", "\\,", "= "]
    texts = [*corpus, *_fuzzed("12+ .…\\ldotscCpP(,)_^{}", 8000, seed=29),
             *("".join(rng.choice(atoms) for _ in range(rng.randint(1, 14))) for _ in range(12000)),
             *(rng.choice(["", "so ", "(", "x"]) + rng.choice([" + ", "+", " - ", "+\t"]).join(
                 rng.choice(atoms[:3] + atoms[4:11] + atoms[12:14]) for _ in range(rng.randint(2, 7)))
               for _ in range(6000)),
             *(rng.choice(["", "_", "^{5}", "{}_", "x", "\\"]) + rng.choice("CPcp") + rng.choice(["(", " (", "_", "_{"])
               + rng.choice(["5, 2)", "4,2)", "3}", "7"]) for _ in range(3000)),
             "1 + 2 + 3 + \\cdots + 10", "1 + 2 + 3 + ... + 9", "2+4+6+…+20", "C(5, 2) = 10", "P(4,2)", "{}_5C_2"]
    ellipses = counts = 0
    for text in texts:
        if sequences._ELLIPSIS_SUM.search(text) is not None:
            assert sequences._may_hold_an_ellipsis_sum(text), text
            ellipses += 1
        elif not sequences._may_hold_an_ellipsis_sum(text):
            assert sequences._ellipsis_regions(text) == [], text
        if sequences._COUNT.search(text) is not None:
            assert "C" in text or "P" in text, text
            counts += 1
    assert ellipses > 100 and counts > 100, (ellipses, counts)
    assert sequences._ellipsis_regions("1 + 2 + 3 + \\cdots + 10") and sequences._count_regions("C(5, 2) = 10")


def test_unrolled_cue_and_ordinal_words_match_their_lists(corpus):
    import random

    rng = random.Random(30)
    words = [*revisions._CUE_WORDS[revisions.RETRACT], *revisions._CUE_WORDS[revisions.ABANDON], *lexicon._ORDINALS]
    texts = [*corpus, *_fuzzed("waitcronglsmxhufe ,.!:'-", 8000, seed=31),
             *(" ".join(rng.choice(words)[:rng.randint(2, 12)] for _ in range(rng.randint(1, 3))) for _ in range(8000))]
    hits = [0, 0, 0]
    for text in texts:
        low = text.lower()
        for i, (fast, listed) in enumerate(((revisions._has_retract_word, revisions._CUE_WORDS[revisions.RETRACT]),
                                            (revisions._has_abandon_word, revisions._CUE_WORDS[revisions.ABANDON]),
                                            (lexicon._has_ordinal, lexicon._ORDINALS))):
            slow = any(w in low for w in listed)
            assert fast(low) == slow, (i, text)
            hits[i] += slow
    assert min(hits) > 1000, hits  # each list is hit often, and missed often: the comparison has teeth
    assert sum(1 for t in texts if not lexicon._has_ordinal(t.lower())) > 1000


def test_counting_and_factoring_problem_prefilters_match_re_i(corpus):
    import random

    rng = random.Random(32)
    words = ["distinct", "ways", "way", "arranged", "arrangements", "choices", "choose", "chosen", "selects",
             "combinations", "permutation", "committees", "license plates", "licence plate", "passwords",
             "divisors", "factors", "prime", "perfect square", "perfect cube", "primes", "waySide", "selection"]
    cased = [w.upper() if rng.random() < 0.3 else w.title() if rng.random() < 0.3 else w for w in words * 40]
    texts = [*corpus, *cased, *(f"{rng.choice(['', 'x', ' ', '5'])}{w}{rng.choice(['', 's', ' ', '.', 'x', '_'])}"
                                for w in cased),
             *_fuzzed("wayselctdisnprmfo \u017f\u212aK", 6000, seed=33),
             "the \u017felected few", "PRIME", "a Perfect Square", "the wa\u0443", ""]
    counted = factored = 0
    for text in texts:
        slow = counting._COUNTING_PROBLEM.search(text)
        assert counting.counting_problem(text) == (slow is not None), text
        counted += slow is not None
        slow = factoring._FACTORING_PROBLEM.search(text)
        fast = factoring.factoring_problem(text)
        assert (fast and (fast.span(), fast.groups())) == (slow and (slow.span(), slow.groups())), text
        factored += slow is not None
    assert counted > 200 and factored > 200, (counted, factored)  # both hit often: the test has teeth
    assert counting.counting_problem("the \u017felected few")  # re.I folds the long s: the non-ASCII path runs it


def test_equation_gap_signal_from_words_matches_the_search(corpus):
    from rewards.checks.claims import equivalence

    texts = [*corpus, "so", "So, ", "SO3", "also", "so_x", "then\nwe", "\\Rightarrow", "$$", "\\\\", "\\]", "ſo",
             "Thus\u00a0x", "x_so", "divided by 2 gives", "(1) and (2)",
             *_fuzzed("soSOthenTHUSgivs _3\n\t,.\\$]ſ\u212aé", 12000)]
    for text in texts:
        assert equivalence._signalled(text) == (equivalence._SIGNAL.search(text) is not None), text
    assert equivalence._signalled("so we get") and not equivalence._signalled("clips in May.\nNatalia sold")


def test_vulgar_fractions_prefilter_changes_nothing(corpus):
    from rewards.parsing import trace

    def slow(text: str) -> str:  # _clean without the prefilter
        text = trace.normalize_latex(trace._CONTROL.sub("", text))
        return text if text.isascii() else trace._VULGAR_RE.sub(trace._vulgar, text)

    texts = [*corpus, "2½ cups", "½", "a ¾ b", "é ⅞7", "12⅓", "1,5⅝", *_fuzzed("12 ½¼⅞é×\n", 6000)]
    alone = 0
    for text in texts:
        assert trace._clean(text) == slow(text), text
        alone += not text.isascii() and trace._VULGAR_CHAR.search(text) is None
    assert alone > 300  # the prefilter answered alone on many texts
    assert trace._clean("2½ cups") == "(2+1/2) cups"
