"""Equation extraction's fast paths (rewards/checks/arithmetic, rewards/checks/equations.py), each against the
reading it replaces.

Every test runs the fast path and the slow reading (the code it replaced, written out here, or the general path with
the fast one turned off) over real GSM8K / MATH-500 text and fuzzed strings, and requires the same result; each also
checks that the fast path ran on many inputs, so that the comparison is not empty.
"""

from __future__ import annotations

import random
import re
from bisect import bisect_right

import pytest

from gold_texts import gold_lines

from rewards.checks.arithmetic import extraction, parser, scanning
from rewards.checks.arithmetic.budget import Budget, MAX_DIGITS
from rewards.checks.arithmetic.literals import num_value
from rewards.checks.arithmetic.tokens import Token, tokenize
from rewards.checks.arithmetic.values import Value
from rewards.checks import equations


def _corpus(limit: int = 300) -> list[str]:
    return gold_lines(limit, limit // 4)


@pytest.fixture(scope="module")
def corpus() -> list[str]:
    return _corpus()


def _fuzzed(alphabet: str, count: int, seed: int, longest: int = 14) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))) for _ in range(count)]


# ------------------------------------------------------------------------------------------- plain arithmetic

def _plain_tokens_slow(expr: str):
    """The token loop _plain_value had: each _PLAIN_TOKEN match where the last ended, then only whitespace; None where
    it raised (a gap)."""
    tokens, pos = [], 0
    for m in parser._PLAIN_TOKEN.finditer(expr):
        if m.start() != pos:
            return None
        number = m.group(1)
        tokens.append(("n", number) if number is not None else ("o", m.group(2)))
        pos = m.end()
    if pos < len(expr) and not expr[pos:].isspace():
        return None
    return tokens


def _plain_tokens_fast(expr: str):
    if parser._PLAIN_TOKENS(expr) is None:
        return None
    return [("n", number) if number else ("o", op) for number, op in parser._PLAIN_TOKEN.findall(expr)]


def test_plain_token_check_in_one_match_matches_the_token_loop(corpus):
    sides = [side for text in corpus for eq in extraction.extract_equations(text) for side in eq.sides]
    texts = sides + _fuzzed("0123456789..+-*/() \t\n\u2028٣x,", 20000, 1) + \
        ["", " ", "5.", "1 . 5", "1.5.2", ".5.5", "..5", "5..", "1 2", "(", "٣+1", "1.\n5", " \u2028 3 "]
    gaps = 0
    for text in texts:
        slow = _plain_tokens_slow(text)
        assert _plain_tokens_fast(text) == slow, repr(text)
        gaps += slow is None
    assert gaps > 1000 and len(texts) - gaps > 5000  # both outcomes are exercised


def _parser_reading(text: str, monkeypatch):
    """evaluate_ex with the plain fast path off: the tokenizer and the parser."""
    with monkeypatch.context() as patch:
        patch.setattr(parser, "_PLAIN", re.compile(r"(?!)"))
        return parser.evaluate_ex(text)


def _expression(rng: random.Random, depth: int) -> str:
    """A random well-formed plain expression, with implicit multiplication ("4(3/1)") among its products."""
    def factor() -> str:
        if depth > 0 and rng.random() < 0.4:
            return "(" + _expression(rng, depth - 1) + ")"
        return rng.choice(["2", "12", "0", "0.5", ".25", "3", "9" * 30])

    text = factor()
    for _ in range(rng.randint(0, 3)):
        text += rng.choice(["+", "-", "*", "/", " * ", "", ""]) + rng.choice(["", " "]) + factor()
    return text


def test_implicit_multiplication_on_the_plain_path_matches_the_parser(monkeypatch):
    rng = random.Random(2)
    atoms = ["2", "12", "0", "0.5", ".25", "9" * 30, "(", "(", ")", ")", "+", "-", "*", "/", " "]
    texts = ["4(3/1)", "10+4(3/1)", "(1/1)+(12+5(1/1))", "2(3)(4)", "(2)(3)", "(2)3", "6/2(3)", "1/2(3)", "2 (3)",
             "1/(2-2)(3)", "2(3", "2()", "(((((((((((((((((2)))))))))))))))))(3)", "9" * 30 + "(" + "9" * 30 + ")",
             "2" + "(2" * 20 + ")" * 20, "(" + "9" * 30 + ")" + "(" + "9" * 30 + ")" * 1]
    texts += ["".join(rng.choice(atoms) for _ in range(rng.randint(1, 11))) for _ in range(20000)]
    texts += [_expression(rng, 3) for _ in range(6000)]
    read = 0
    for text in texts:
        assert parser.evaluate_ex(text) == _parser_reading(text, monkeypatch), repr(text)
        if "(" in text and parser._PLAIN.fullmatch(text):
            try:
                parser._plain_value(text)
                read += re.search(r"[\d)]\s*\(", text) is not None
            except parser._NotPlain:
                pass
    assert read > 300  # implicit multiplication read on the fast path, not handed to the parser
    # and on token lists (eval_tokens), against the parser alone
    for text in texts[:6000]:
        toks = []
        tokenize(text, 0, len(text), False, toks, True)
        with monkeypatch.context() as patch:
            patch.setattr(parser, "_plain_tokens", lambda toks: False)
            slow = parser.eval_tokens(toks)
        assert parser.eval_tokens(toks) == slow, repr(text)


def test_plain_binary_needs_no_bit_check_for_literals(monkeypatch):
    # the largest numerators and denominators two literals of MAX_DIGITS digits make: the values are the parser's
    extremes = ["9" * MAX_DIGITS, "0." + "0" * (MAX_DIGITS - 2) + "1", "." + "9" * (MAX_DIGITS - 1), "1" + "0" * 29,
                "3" * 15 + "." + "7" * 15, "0"]
    for a in extremes:
        for b in extremes:
            for op in "+-*/":
                text = f"{a}{op}{b}"
                fast = parser.evaluate_ex(text)
                assert fast == _parser_reading(text, monkeypatch), text
                if isinstance(fast, Value):
                    assert fast.exact.numerator.bit_length() < 420 and fast.approx == float(fast.exact)


# ------------------------------------------------------------------------------------------- annotations

def test_numeral_value_is_what_eval_tokens_gives_for_the_tokens(corpus):
    rng = random.Random(6)
    parts = [piece for text in corpus for m in extraction._ANNOT_RE.finditer(text) for piece in m.group(1).split("=")]
    parts += ["".join(rng.choice("0123456789. +-*/٣") for _ in range(rng.randint(1, 9))) for _ in range(8000)]
    parts += ["1/0", "9" * 31, "9" * 30 + "*" + "9" * 30, "0.5/0.0", "5", ".5", "007"]
    read = 0
    for part in parts:
        simple = extraction._SIMPLE_PART(part, 0, len(part))
        if simple is None:
            continue
        read += 1
        toks = []
        tokenize(part, 0, len(part), False, toks, True)
        slow = parser.eval_tokens(toks)
        assert parser.numeral_value(*simple.group(1, 2, 3)) == (slow if isinstance(slow, Value) else None), part
    assert read > 2000


def _annotated(corpus) -> list[str]:
    rng = random.Random(7)
    texts = [text for text in corpus if "<<" in text]
    values = ["3", "4", "12", "3.33", "3.3", "0.5", ".5", "7", "10", "1/3", "2 cm", "$5", "x", "2.5%", "9" * 31]
    for _ in range(3000):  # fuzzed annotations, many of them close but not equal ("10/3=3.33": the rounding rules)
        sides = [rng.choice(values) + rng.choice(["", "*2", "/3", " + 1", "-4"]) for _ in range(rng.randint(2, 3))]
        text = "=".join(sides)
        texts.append(f"So {rng.choice(['', '10/3 = ', '4 * 3 = '])}<<{text}>>{rng.choice(values)} apples.")
    return texts


def test_annotation_sides_read_in_one_match_check_as_the_tokenized_ones(corpus, monkeypatch):
    # fast: a numeral or "a op b" part is read by numeral_value, its tokens left for check_equation to read from the
    # side text; slow: every part tokenized and evaluated, the tokens kept (_SIMPLE_PART never matches)
    texts = _annotated(corpus)
    fresh = equations.step_equations.__wrapped__
    fast = [fresh(text) for text in texts]
    with monkeypatch.context() as patch:
        patch.setattr(extraction, "_SIMPLE_PART", lambda text, pos, end: None)
        slow = [fresh(text) for text in texts]
    read_from_text = 0
    for text, a, b in zip(texts, fast, slow):
        assert len(a) == len(b), text
        for (eq, check), (eq_slow, check_slow) in zip(a, b):
            assert eq == eq_slow and repr(eq) == repr(eq_slow), text
            assert check == check_slow and repr(check) == repr(check_slow), text
            if eq.source == "annotation" and check.ok is not None and any(
                    v is not None and w is not None and v.exact != w.exact for v, w in zip(eq.values, eq.values[1:])):
                read_from_text += 1  # a pair not exactly equal: check_equation read the side's tokens
    assert read_from_text > 200


# ------------------------------------------------------------------------------------------- restatements

def _drop_restatements_after(text: str, out: list) -> list:
    """The dedup extract_equations ran after _chains: drop each plain equation that restates an adjacent annotation
    with the same values (out: every equation, none dropped)."""
    annots = []
    read = extraction.read_clock_times(extraction._join_split_math(extraction.read_connectives(text)))
    for m in extraction._ANNOT_RE.finditer(read):
        eqs = [eq for eq in out if eq.source == "annotation" and eq.span == (m.start(), m.end())]
        annots.append((m.start(), m.end(), eqs))
    starts = [a[0] for a in annots]
    keep = []
    for eq in out:
        dup = False
        if eq.source == "plain" and annots:
            k = bisect_right(starts, eq.span[1] + 1)
            for a_s, a_e, a_eqs in annots[max(0, k - 3):k]:
                if a_s <= eq.span[1] + 1 and a_e >= eq.span[0] - 1:
                    for ae in a_eqs:
                        if all(extraction._BARE_SIDE.fullmatch(side) for side in ae.sides):
                            continue
                        if [v.exact if v else None for v in ae.values] == \
                                [v.exact if v else None for v in eq.values] or \
                                extraction._same_values(ae.values, eq.values):
                            dup = True
        if not dup:
            keep.append(eq)
    return keep


def test_restatements_dropped_as_they_are_read_match_dropping_them_after(corpus, monkeypatch):
    texts = _annotated(corpus)
    fast = [extraction.extract_equations(text) for text in texts]
    with monkeypatch.context() as patch:
        patch.setattr(extraction, "_restates", lambda *args: False)
        everything = [extraction.extract_equations(text) for text in texts]
    dropped = 0
    for text, kept, full in zip(texts, fast, everything):
        slow = _drop_restatements_after(text, full)
        assert kept == slow and [e.span for e in kept] == [e.span for e in slow], text
        dropped += len(full) - len(kept)
    assert dropped > 500


def test_windows_without_a_relation_read_nothing():
    # extract_equations no longer searches each segment for a relation before tokenize_windows: that search is the
    # first thing tokenize_windows does, and without a match it appends no token and spends no budget
    for text in _fuzzed("ab 12+-*/.,$\\(){}<>\n", 4000, 8, 40):
        if extraction._EQ_HINT.search(text):
            continue
        for latex in (False, True):
            toks, budget = [], Budget()
            extraction.tokenize_windows(text, 0, len(text), toks, latex, budget)
            assert toks == [] and budget == Budget(), text


# ------------------------------------------------------------------------------------------- number scan

def test_number_pattern_with_a_leading_class_matches_num_scan(corpus):
    alphabet = "0123456789.,x_a \\cdotimesdivpi{}!-$%٣²é\n"
    texts = corpus + _fuzzed(alphabet, 30000, 9, 30) + [
        "x2 + H2O", "10\\cdot9", "\\times.5", "a\\pi3", "1,\\!000", "1{,}000.5", "٣5", "²5", "_5", ".5.5", "5.",
        "1,2345", "12,345,678.9", "." * 50 + "1", "9" * 40 + ".5", "\\div\\div3", "\n.5", "é5", "x1,234"]
    found = 0
    for text in texts:
        slow = [(m.group(1), m.span(1)) for m in scanning._NUM_SCAN.finditer(text)]
        assert [(m.group(), m.span()) for m in scanning._NUM_FIRST.finditer(text)] == slow, repr(text)
        found += len(slow)
        digits = [(num_value(g.replace(",", "").replace("\\!", "").replace("{}", "")), span) for g, span in slow]
        assert [x for x in scanning.numbers_in(text) if x[1] in {s for _, s in slow}] == \
            [d for d in digits if d[0] is not None], repr(text)
    assert found > 20000


def _parser_alone(toks):
    """What eval_tokens gives for an exact reading, from the parser alone (no fast path before it)."""
    from fractions import Fraction

    from rewards.checks.arithmetic.values import Unparseable

    try:
        v = parser._Parser(toks).run()
    except parser._Fail as fail:
        return Unparseable(fail.reason)
    return Value(Fraction(v), float(v), True)


def test_currency_literal_read_as_the_literal_matches_the_parser():
    # eval_tokens reads [$, n] ("$8", the commonest side after a lone numeral) as the literal alone
    for raw in ["8", "3.50", ".5", "0", "007", "1" + "0" * 29, "9" * 30, "9" * 31, "12.000", "٣"]:
        for space in (False, True):
            toks = [Token("$", "$", 0, 1, True), Token("n", raw, 1, 1 + len(raw), space)]
            assert parser.eval_tokens(toks) == _parser_alone(toks), raw
            assert parser.eval_tokens(toks[1:]) == _parser_alone(toks[1:]), raw
