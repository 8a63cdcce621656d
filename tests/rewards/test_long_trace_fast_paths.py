"""Readings that a long trace no longer pays for in full give what the full readings give.

Each fast path here replaces a reading on a path a long completion takes (a trace with one character outside ASCII,
steps past the claim checkers' horizon, sides that have no value): the test compares it with the reading it
replaces, on real solutions and on fuzzed text built from the characters where the two could part.
"""

from __future__ import annotations

import random
import re
import sys

import pytest

from gold_texts import gold_rows
from rewards.checks.claims import assignments, coordinates, sequences
from rewards.checks.arithmetic import evaluate
from rewards.evidence import wordy
from rewards.parsing import trace as trace_module
from rewards.parsing.folding import ascii_lowered


def _fuzzed(alphabet: list[str], count: int, seed: int, longest: int = 14) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, longest))) for _ in range(count)]


# every character ``re.I`` folds to an ASCII letter other than its own case, one that lower-cases to two, and
# ordinary characters outside ASCII that long traces carry (dashes, quotes, signs)
_UNUSUAL = ["\u0131", "\u017f", "\u212a", "\u0130", "\u00c9", "\u2013", "\u2019", "\u00d7", "\u00f7", "\u20ac", "\u03a3"]


def test_lowering_folds_as_re_i_does_on_every_code_point_it_accepts():
    letters = re.compile("[a-z]", re.I)
    classes = [re.compile(p) for p in (r"\s", r"\d", r"\w", r"[^$\n]", r"[:\s]", r"[\d,]")]
    accepted = 0
    for code in range(0x110000):
        ch = chr(code)
        low = ascii_lowered(ch)
        if low is None:
            continue
        accepted += 1
        assert len(low) == 1, hex(code)
        if letters.fullmatch(ch):  # re.I matches it to an ASCII letter: lower-casing gives that letter
            assert low in "abcdefghijklmnopqrstuvwxyz" and re.fullmatch(low, ch, re.I), hex(code)
        else:
            assert low not in "abcdefghijklmnopqrstuvwxyz", hex(code)
        for cls in classes:  # and the classes the folded patterns use see the same character
            assert bool(cls.fullmatch(ch)) == bool(cls.fullmatch(low)), (hex(code), cls.pattern)
    assert accepted > 1_000_000
    assert [ascii_lowered(c) for c in ("\u0131", "\u017f", "\u0130")] == [None, None, None]


@pytest.fixture(scope="module")
def answers() -> list[str]:
    return [solution for _problem, solution in gold_rows(150, 75)]


def test_answer_phrases_in_text_outside_ascii_match_the_case_insensitive_scan(answers):
    pieces = ["answer", "Answer", "ANSWER", "the answer", "The final answer", " is ", ":", "=", " 5", " 12%", "$3$",
              "\\(x\\)", " ", "\n", "-1.5", "/ 2", "ans", "wer", "FINAL ", "the answer is 42", "Answer: 3.", *_UNUSUAL, "\u0130s", "\u0131s", "\u017f"]
    texts = [text + tail for text in answers for tail in ("", " \u2013 the answer is 7.")]
    texts += _fuzzed(pieces, 20_000, seed=7)
    folded = matched = 0
    for text in texts:
        low = ascii_lowered(text)
        if low is None:
            continue
        slow = [(m.span(), m.span(1)) for m in trace_module._ANSWER_PHRASE.finditer(text)]  # what the fold replaces
        assert [(m.span(), m.span(1)) for m in trace_module._folded_phrases(low)] == slow, text
        folded += not text.isascii()
        matched += len(slow)
    assert folded > 3_000 and matched > 1_000, (folded, matched)
    texts_outside_ascii = [t for t in texts if not t.isascii()]
    assert sum(ascii_lowered(t) is None for t in texts_outside_ascii) > 1_000  # and the scan still runs on the rest


def _checked_gated_and_ungated(module, steps: tuple[str, ...]) -> list:
    """``module.check_trace(steps)`` with its trace gate, asserted equal to the findings with the gate admitting
    every trace."""
    gated = module.check_trace(steps, "")
    saved = module._may_hold_any
    module._may_hold_any = lambda _steps: True
    try:
        assert module.check_trace(steps, "") == gated, module.__name__
    finally:
        module._may_hold_any = saved
    return gated


def test_claim_checkers_gate_only_the_steps_they_read():
    rng = random.Random(11)
    claims = ["x = 5, so 2x = 11", "the midpoint of (1, 2) and (3, 4) is (2, 5)", "1 + 2 + ... + 10 = 56",
              "the mean of 2, 4, 6 is 5", "a = 3 and a^2 = 10"]
    filler = ["She has 16 - 3 - 4 = 9 eggs.", "So she earns 9 * 2 = 18 dollars.", "Then we add them up."]
    found = 0
    for _ in range(40):
        head = [rng.choice(filler) for _ in range(rng.randint(150, 205))]
        tail = [rng.choice(claims + filler) for _ in range(rng.randint(0, 60))]
        if rng.random() < 0.5:  # a claim inside the first 200 steps, too
            head[rng.randrange(len(head))] = rng.choice(claims)
        steps = tuple(head + tail)
        for module in (assignments, coordinates, sequences):
            gated = _checked_gated_and_ungated(module, steps)
            assert all(k < module.MAX_STEPS for k, _ in gated)
            found += len(gated)
    assert found >= 10  # the comparison covers refuted claims, not only empty lists


def _unit_free_derivation_reading_every_side(sides):
    """:func:`wordy.unit_free_derivation` as it read every side before deciding."""
    if len(sides) < 2:
        return None
    values = [evaluate(wordy.unit_free(side)) for side in sides]
    if any(v is None for v in values) and any("\\mbox" in side or "\\text" in side for side in sides):
        values = [evaluate(wordy._LATEX_UNIT.sub(" ", side)) for side in sides]
    if any(v is None or not v.is_exact or v.exact is None for v in values):
        return None
    if any(v.exact != values[-1].exact for v in values):
        return None
    return wordy.Derivation(tuple(sides[:-1]), values[-1].exact, "computed")


def test_unit_free_derivation_stops_at_the_first_side_without_a_value():
    pieces = ["8 mice", " * ", "6 pups/mouse", "48 pups", "x", "2x + 3", "\\frac{1}{2}", "\\mbox{ cm}^2", "15",
              "\\text{ m}", "\\sqrt{2}", "3.5", "7/2", "0.1", "1/3", "\\pi", "(2)", "6", "12$", "$", " "]
    rng = random.Random(5)
    cases = [tuple("".join(rng.choice(pieces) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 4)))
             for _ in range(6_000)]
    units = ["mice", "cm", "pups/mouse", "\\mbox{ cm}^2", "\\text{ m}", "", "dollars", "x"]
    for _ in range(1_000):  # computations with units, true or off by one, and a side without a value among them
        a, b = rng.randint(1, 40), rng.randint(1, 40)
        result = a * b + rng.choice([0, 0, 1])
        sides = [f"{a} {rng.choice(units)} * {b} {rng.choice(units)}", f"{result} {rng.choice(units)}"]
        if rng.random() < 0.3:
            sides.insert(rng.randrange(3), rng.choice(["x", "2y + 1", "\\sqrt{2}", f"{a * b}"]))
        cases.append(tuple(sides))
    cases += [("8 mice * 6 pups/mouse", "48 pups"), ("\\frac{1}{2}\\times 3 \\times 10", "15\\mbox{ cm}^2"),
              ("\\sqrt{2}", "x", "\\text{m}"), ("\\sqrt{2} \\text{ m}", "y"), ("2x", "10")]
    derived = 0
    for sides in cases:
        expected = _unit_free_derivation_reading_every_side(sides)
        assert wordy.unit_free_derivation(sides) == expected, sides
        derived += expected is not None
    assert derived > 200


def test_gap_signal_with_a_dollar_sign_matches_the_search(answers):
    from rewards.checks.claims import equivalence

    pieces = ["$", "$$", "so", "So", " ", "$5", "thus", "\\]", "\\\\", "\\Rightarrow", "gives", "x", "\n", "ſo", "–",
              "İ", "then", ",", "3", "a", "$x$", "hence$"]
    texts = [line for text in answers for line in text.splitlines()] + _fuzzed(pieces, 20_000, seed=9)
    signalled = 0
    for text in texts:
        slow = equivalence._SIGNAL.search(text) is not None
        assert equivalence._signalled(text) == slow, text
        signalled += slow
    assert signalled > 5_000
    assert equivalence._signalled("$5 each, so the total") and not equivalence._signalled("$5 each, and $6")


def _gap_ok_as_it_was(gap: str) -> bool:
    """The equivalence checker's gap test reading the labels first and every gap through its strip pattern."""
    from rewards.checks.claims import equivalence as e

    if len(gap) > e.MAX_GAP_CHARS or "=" in gap or not e._signalled(gap):
        return False
    if e._DIGIT.search(gap) and e._OPERATION.search(gap) is None:
        return False
    text = e._GAP_STRIP.sub(lambda m: " " + (m.group(1) or "") + " ", gap)
    return all(len(w) <= 1 or w.lower() in e._GAP_WORDS for w in e._WORD.findall(text))


def test_gap_test_asking_words_first_matches_the_labels_first(answers):
    from rewards.checks.claims import equivalence

    pieces = ["so", "we get", "subtracting", "Dividing both sides by 2", " ", "\n", "(1)", "(2)", "$", "\\text{so}",
              "\\Rightarrow", "\\quad", ",", ".", "3", "x", "apples", "then", "\\(", "\\)", "{", "}", "&", "and", "é"]
    texts = [line for text in answers for line in text.splitlines()] + _fuzzed(pieces, 20_000, seed=13, longest=8)
    accepted = 0
    for text in texts:
        expected = _gap_ok_as_it_was(text)
        assert equivalence._gap_ok(text) == expected, text
        accepted += expected
    assert accepted > 1_000


def test_long_traces_are_gated_a_chunk_at_a_time_with_the_same_findings(answers):
    from rewards.checks.claims import congruences, gates, numberfacts, substitution

    step_gates = {congruences: congruences._may_hold_a_claim, numberfacts: numberfacts._may_hold_a_fact,
                  substitution: substitution._may_define_or_claim}
    lines = [line for text in answers for line in text.splitlines() if line.strip()]
    claims = ["17 mod 5 = 3", "the remainder is 4", "13 is prime", "48 is divisible by 7", "f(x) = 2x + 1",
              "f(3) = 8", "7 > 9", "gcd(12, 18) = 6"]
    rng = random.Random(17)
    admitted = found = 0
    for _ in range(30):
        steps = [rng.choice(lines) for _ in range(rng.randint(gates.CHUNK_STEPS + 1, 4 * gates.CHUNK_STEPS))]
        for _ in range(rng.randint(0, 2)):  # a claim somewhere, or none
            steps[rng.randrange(len(steps))] = rng.choice(claims)
        for module, step_gate in step_gates.items():
            if any(step_gate(s) for s in steps):
                admitted += 1
                assert module._may_hold_any(steps), module.__name__
            gated = _checked_gated_and_ungated(module, steps)
            found += len(gated)
    assert admitted >= 30 and found >= 5, (admitted, found)
    assert not gates.admits(["2 + 2 = 4"] * 300, lambda text: "mod" in text)
    assert gates.admits(["2 + 2 = 4"] * 300 + ["x mod 3"], lambda text: "mod" in text)


def test_the_bound_value_scan_reads_letters_and_blanks_as_the_regex_does():
    """``_bound_value`` looks back from each ``=`` over ``str.isspace`` blanks for a member of ``_CASELESS_LETTERS``:
    the same characters as ``\\s`` and as ``[A-Za-z]`` under ``re.I``, over every code point."""
    from rewards.evidence import licences

    letter, blank = re.compile("[A-Za-z]", re.I), re.compile(r"\s")
    for code in range(sys.maxunicode + 1):
        ch = chr(code)
        assert (ch in licences._CASELESS_LETTERS) == (letter.fullmatch(ch) is not None), hex(code)
        assert ch.isspace() == (blank.fullmatch(ch) is not None), hex(code)
    for text in ["x = 4", "x\u2003=\n-4", "=4", " = 4", "4 = 4", "\u212a = 1", "ab = c = 5", "a =", "a == 3", "7a =-1"]:
        assert licences._bound_value(text) == (licences._BOUND_VALUE.search(text) is not None), text


def test_trial_bindings_are_scanned_only_where_a_letter_is_set_to_a_number(answers, monkeypatch):
    from rewards.evidence import licences

    pieces = ["Let's try ", "if ", "When ", "for ", "substituting ", "$", "x", "n", "X", "=", " = ", "-", "4", "41",
              "1.5", ":", ".", "\n", " ", "\\(", "\\)", "2^x", " + ", "we get ", "1 + 8 + 125 = 134", *_UNUSUAL]
    lines = [line for text in answers for line in text.splitlines() if line.strip()]
    rng = random.Random(19)
    words = ["try", "Trying", "check", "plug in", "substituting", "Suppose", "assume", "if", "When", "for", "consider",
             "let", "Let's", "let us", "so", "then"]
    texts = lines + _fuzzed(pieces, 20_000, seed=19)
    texts += [rng.choice(["", "Now ", "3 + 4 = 7. "]) + rng.choice(words) + rng.choice([" ", " the value ", " $", ""])
              + rng.choice(["x", "n", "X", "\\x", "ab", "\u0131", "\u212a"]) + rng.choice(["", " ", "\t"]) + "="
              + rng.choice(["", " ", "\n"]) + rng.choice(["4", "-41", "1.5", "x", "7 + 1", "12:", ""])
              + rng.choice(["", ".", ", we get 5 + 3 = 8"]) for _ in range(6_000)]
    bound = 0
    for text in texts:
        binds = licences._BINDING.search(text) is not None
        assert not binds or licences._BOUND_VALUE.search(text) is not None, text  # the prefilter never drops one
        assert licences._bound_value(text) == (licences._BOUND_VALUE.search(text) is not None), text
        bound += binds
    assert bound > 500
    problems = [r"If $x$ is a positive integer such that $1^x + 2^x + 5^x = 642$, what is $x$?",
                r"Euler's polynomial $p(n) = n^2 - n + 41$ yields primes for many $n$."]
    steps = _fuzzed(pieces, 3_000, seed=23, longest=10) + ["Let's try $x=3$. We get $1 + 8 + 125 = 134$.",
                                                           r"Let's try \( n = 41 \): \[ p(41) = 41^2 - 41 + 41 = 1681 \]"]

    def read(problem):
        lic = licences.Licences(problem)
        return [lic.trial_values(step) for step in steps]  # pending bindings carry from step to step

    fast = [read(problem) for problem in problems]
    monkeypatch.setattr(licences, "_bound_value", lambda text: True)  # every step scanned in full
    assert [read(problem) for problem in problems] == fast
    assert sum(bool(values) for per_problem in fast for values in per_problem) >= 2
