"""The fast paths in the claim checkers' gates, trace parsing, revisions and the scoring pass give exactly what
they replace.

Each one skips work whose result cannot matter (a claim checker on a trace none of whose steps passes its gate, the
retraction analysis on a trace without a cue word, the reasons of a grounding test whose emptiness alone is read) or
reads the same thing more cheaply (a reversed-text search, a scan from the places a match can start). These tests run
both readings over real GSM8K and MATH-500 text plus fuzzed text and require the same result.
"""

from __future__ import annotations

import random
import re

import pytest

from gold_texts import gold_rows

from rewards.checks.claims import (assignments, congruences, continuations, coordinates, numberfacts, sequences,
                                   substitution, turns, written_as)
from rewards.parsing import trace as trace_module
from rewards.parsing.trace import parse_trace
from rewards.scoring import components, revisions, score
from rewards.evidence import answer_derivations, build_dataflow
from rewards.verifiers.base import StepCheck
from rewards.verifiers.symbolic import SymbolicVerifier

GATED = {  # module -> the per-step gate its trace gate joins
    assignments: lambda s: assignments._may_assign(s) and assignments._HINT.search(s) is not None,
    congruences: congruences._may_hold_a_claim,
    coordinates: coordinates._may_hold_a_claim,
    numberfacts: numberfacts._may_hold_a_fact,
    sequences: sequences._may_hold_a_claim,
    substitution: substitution._may_define_or_claim,
    turns: turns._may_hold_a_claim,
    written_as: written_as._may_hold_a_claim,
}

# pieces that open each checker's gate (and its claims: true and false ones) and the edges of their patterns
PIECES = [
    "x = 5", "x=-3", "$y = \\frac{1}{2}$", "so 2x + 3 = 13", "then x = 7", "17 \\equiv 2 \\pmod{5}", "17 mod 5 = 3",
    "the remainder is 4", "gcd(12, 18) = 6", "lcm(4, 6) = 10", "101_2 = 5", "12 R 3", "12 r", "12 divided by 5 is 2 R 2",
    "48 is divisible by 7", "the units digit of 7^4 is 1", "13 is prime", "3 < 5", "7 > 9", "<<4*5=20>>20",
    "\\le", "\\geq 2", "f(x) = 2x + 1", "f(3) = 8", "g(2) = 5", "the midpoint of (1, 2) and (3, 4) is (2, 3)",
    "slope = 2", "distance = 5", "\\begin{pmatrix} 1 \\\\ 2 \\end{pmatrix}", "1 + 2 + \\cdots + 10 = 55",
    "1 + 2 + ... + 10 = 56", "the mean of 2, 4, 6 is 4", "C(5, 2) = 10", "P(5, 2) = 21", "\\sum_{k=1}^{4} k = 10",
    "$1$ can be written as $2$", "is the same as", "$180^\\circ$ is a full rotation", "This angle is a half Turn", "\\[ 2 + 3 \\]", "\\[ = 5 \\]", "\\[ = 6 \\]", "$$ 4 \\cdot 2 $$", "$$ = 9 $$", "\\\\ &= 12", "$2x + 2x$ simplifies to $4x$",
    "$3 + 4$ equals $8$", "(a+b)^2 = a^2 + b^2 = 4", "Wait", "é", "…", "≤", "\n", " ", "\t", "a", "R", "r", "_", "(",
    ",", "=", "3", "\\", "$", "mod", "prime", "mean", "x", "(2,", "f", "<", ">", "\n2x + 3 = 13", "\nso 2x = 16",
    "\nthus x^2 = 9", "\nso x = 2", "\nhence 3x - 1 = 2x + 4", "\nsubtracting gives x = 6", "\n$4y = 12$ so $y = 4$",
]


def _rows(limit: int = 150) -> list[dict]:
    return [{"question": p, "answer": s} for p, s in gold_rows(limit, limit // 2)]


def _step_lists() -> list[tuple[list[str], str]]:
    out = [(row["answer"].splitlines(), row["question"]) for row in _rows()]
    rng = random.Random(10)
    for _ in range(1500):
        steps = ["".join(rng.choice(PIECES) + rng.choice(["", " ", ". "]) for _ in range(rng.randint(1, 5)))
                 for _ in range(rng.randint(1, 5))]
        out.append((steps, rng.choice(["", "Let f(x) = 2x + 1.", "Find 17 mod 5.", "Solve x + 2 = 5."])))
    return out


@pytest.fixture(scope="module")
def step_lists() -> list[tuple[list[str], str]]:
    return _step_lists()


def test_trace_gates_admit_every_trace_a_step_gate_admits(step_lists):
    admitted = {module: 0 for module in GATED}
    for steps, _problem in step_lists:
        for module, step_gate in GATED.items():
            if any(step_gate(s) for s in steps):
                admitted[module] += 1
                assert module._may_hold_any(steps), (module.__name__, steps)
    assert min(admitted.values()) >= 20, admitted  # the fuzz reaches every gate
    assert sum(not congruences._may_hold_any(s) for s, _ in step_lists) > 100  # and the gates do close


def test_gated_checkers_find_what_the_ungated_ones_find(step_lists, monkeypatch):
    gated = {module: [module.check_trace(steps, problem) for steps, problem in step_lists] for module in GATED}
    found = 0
    for module in GATED:
        monkeypatch.setattr(module, "_may_hold_any", lambda steps: True)
    for module, results in gated.items():
        assert [module.check_trace(steps, problem) for steps, problem in step_lists] == results, module.__name__
        found += sum(map(len, results))
    assert found >= 20  # the comparison covers refuted claims, not only empty lists
    assert assignments.check_trace(["x = 5", None, "so x = 5, 2x = 11"]) == \
        assignments.check_trace(["x = 5", "", "so x = 5, 2x = 11"])  # a step that is no text leaves the gate open


def test_continuation_gates_change_no_finding(step_lists):
    found = 0
    for steps, problem in step_lists:
        slow = (continuations.continuation_chains(steps, problem) + continuations.word_claims(steps, problem)
                + continuations.chained_identities(steps, problem))
        assert continuations.check_trace(steps, problem) == slow, steps
        found += len(slow)
    assert found >= 10


def test_reversed_assignment_search_matches_the_loop_from_each_equals_sign():
    def loop(step: str) -> bool:  # the reading it replaces
        i = step.find("=")
        while i != -1:
            j = i - 1
            while j >= 0 and step[j].isspace():
                j -= 1
            if j >= 0 and step[j] in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz":
                return True
            i = step.find("=", i + 1)
        return False

    rng = random.Random(3)
    atoms = ["=", "x", " ", "\t", "\n", "\x1c", "\u2003", "\u00a0", "5", "é", "Ω", "\u3000", "\x85", "<<", ">>", "(",
             "Z", "\u200b", "\x0b"]
    texts = [s for steps, _ in _step_lists()[:300] for s in steps]
    texts += ["".join(rng.choice(atoms) for _ in range(rng.randint(0, 10))) for _ in range(20000)]
    assert sum(loop(t) for t in texts) > 500
    for text in texts:
        assert assignments._may_assign(text) == loop(text), repr(text)


def test_answer_phrases_scanned_from_their_starts_match_finditer():
    pieces = ["answer", "the answer", "final answer", "Answer", " is ", ":", "=", " 5", "$3$", "\\(x\\)", "the ",
              "final ", " ", "\n", "42", "-1.5", "%", "/ 2", "ans", "wer", "fi", "nal", "\\boxed{7}"]
    rng = random.Random(5)
    texts = [row["answer"] for row in _rows()]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 14))) for _ in range(20000)]
    matched = 0
    for text in texts:
        low = text.lower()
        slow = [(m.span(), m.groups()) for m in trace_module._ANSWER_PHRASE_FOLDED.finditer(low)]
        assert [(m.span(), m.groups()) for m in trace_module._folded_phrases(low)] == slow, text
        matched += len(slow)
    assert matched > 300


def test_boxed_content_without_the_split_of_the_rest_matches_the_old_reading():
    def old(text: str, idx: int):  # the reading it replaces: the split first
        i = text.find("{", idx)
        head = text[idx:].split(None, 1)
        if i < 0 or (len(head) > 1 and text[idx:i].strip() not in ("\\boxed", "\\fbox")):
            m = re.match(r"\\(?:boxed|fbox)\s+([^\s$]+)", text[idx:])
            return m.group(1) if m else None
        return trace_module._boxed_at(text, idx)  # past the test, both read the braces the same way

    pieces = ["\\boxed", "\\fbox", "{", "}", "{12}", " ", "\n", "7", "$", "x", "\\boxed{\\frac{1}{2}}", "\\boxed 5"]
    rng = random.Random(7)
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))
        for idx in {text.rfind("\\boxed"), text.rfind("\\fbox"), text.find("\\boxed")} - {-1}:
            assert trace_module._boxed_at(text, idx) == old(text, idx), (text, idx)


def test_gsm8k_answer_pattern_needs_its_hashes():
    for row in _rows():
        for text in (row["answer"], row["question"]):
            if "####" not in text:
                assert trace_module._GSM8K_ANSWER.sub("", text) == text
                assert not trace_module._GSM8K_ANSWER.findall(text)
    assert trace_module.split_steps("2 + 2 = 4\n#### 4") == ["2 + 2 = 4"]
    assert trace_module.extract_final_answer("so 4\n#### 4") == ("4", "gsm8k")


def _flows() -> list[tuple]:
    """Traces and dataflows of real solutions, with a slip, a retraction, an abandonment and an ungrounded fee added."""
    out = []
    for k, row in enumerate(_rows(120)):
        lines = row["answer"].splitlines()
        variants = [row["answer"]]
        for i, line in enumerate(lines[:-1]):
            m = re.search(r"=\s*(\d+)", line)
            if m:
                slipped = line[:m.start(1)] + str(int(m.group(1)) + 1) + line[m.end(1):]
                cue = ["Wait, that is wrong: " + line, "Let me start over with another approach.",
                       "Hmm, let me recheck: " + line][k % 3]
                variants.append("\n".join([*lines[:i], slipped, *lines[i + 1:]]))
                variants.append("\n".join([*lines[:i], slipped, cue, *lines[i + 1:]]))
                variants.append("\n".join([*lines[:i], line, "She also pays a fee: 7 + 5 = 12.", *lines[i + 1:]]))
                break
        for completion in variants:
            trace = parse_trace(row["question"], completion)
            if not trace.issues:
                out.append((trace, build_dataflow(trace)))
    return out


@pytest.fixture(scope="module")
def flows() -> list[tuple]:
    return _flows()


def test_revisions_skipped_without_a_cue_word_match_the_full_analysis(flows, monkeypatch):
    verifier = SymbolicVerifier()
    qs = [[c.q for c in verifier.verify(t, f)] for t, f in flows]
    fast = [revisions.analyse_revisions(t, f, q) for (t, f), q in zip(flows, qs)]
    assert sum(not revisions._may_cue(list(t.steps)) for t, _ in flows) > 100
    assert sum(bool(r.superseded or r.fake) for r in fast) >= 10  # cues were read where there are some
    monkeypatch.setattr(revisions, "_may_cue", lambda steps: True)
    assert [revisions.analyse_revisions(t, f, q) for (t, f), q in zip(flows, qs)] == fast


def test_no_cue_word_means_no_cue_in_any_step():
    pieces = ["wait", "Actually", "hmm", "that's wrong", "let me re-check", "No, it is", "doesn't work",
              "let me start over", "let's try another", "never mind", "approach", "so", "the", "3 + 4 = 7", ".", " ",
              "\n", "WAIT", "Let Me", "scratch that", "forget", "Ok", "now", "work", "to", "é"]
    rng = random.Random(11)
    closed = 0
    for _ in range(5000):
        steps = ["".join(rng.choice(pieces) + " " for _ in range(rng.randint(1, 3))) for _ in range(rng.randint(1, 4))]
        if not revisions._may_cue(steps):
            closed += 1
            assert not any(revisions.RETRACT.search(s) or revisions.ABANDON.search(s) for s in steps), steps
    assert closed > 200
    assert revisions._may_cue(["é", "3 + 4 = 7"]) and revisions._may_cue([None, "x"])  # non-ASCII, no text: open


def test_symbolic_verify_in_one_pass_matches_the_three_passes(flows):
    def old(trace, flow):  # the reading it replaces, with the same grounding part
        cfg = SymbolicVerifier().config
        out = []
        for step, new in zip(flow.steps, SymbolicVerifier().verify(trace, flow)):
            results = [c.ok for c in step.checks if c.ok is not None]
            if any(ok is False for ok in results):
                q = cfg.q_false
                reasons = [c.detail for c in step.checks if c.ok is False]
            elif results:
                q = cfg.q_true
                reasons = []
            else:
                q = cfg.q_prior
                reasons = []
            if step.ungrounded:
                unique = list(dict.fromkeys(step.ungrounded))
                if q > cfg.ungrounded_floor:
                    q = max(cfg.ungrounded_floor, q * cfg.ungrounded_factor ** len(unique))
                reasons.append(new.reasons[-1])
            out.append(StepCheck(q=q, reasons=reasons, checked=bool(results)))
        return out

    checked = failed = 0
    for trace, flow in flows:
        fast = SymbolicVerifier().verify(trace, flow)
        assert fast == old(trace, flow)
        checked += sum(c.checked for c in fast)
        failed += sum(c.q == SymbolicVerifier().config.q_false for c in fast)
    assert checked > 200 and failed > 50


def test_grounded_derivation_test_matches_the_listed_reasons(flows):
    blocked = 0
    for _trace, flow in flows:
        derivations = answer_derivations(flow)
        listed = score._ungrounded_on_answer_path(flow, strict=False, derivations=derivations)
        assert score._grounded_derivation(flow, derivations) == (not listed)
        blocked += bool(listed)
    assert blocked >= 5


def test_implication_compares_the_product_only_when_needed(flows):
    def old(flow):
        if flow.answer_value is None or flow.last_derived is None:
            return None
        if flow.answer_value in (flow.last_derived, flow.last_derived * 100):
            return 1.0
        if flow.answer_step is not None:
            return 0.7
        if flow.answer_value in flow.problem_numbers:
            return 0.2
        return 0.1

    assert [components.implication(f) for _, f in flows] == [old(f) for _, f in flows]


def test_shared_default_config_and_verifier_score_like_fresh_ones():
    weights = dict(score.DEFAULT_CONFIGS["scoring"].weights)
    for row in _rows(40):
        shared = score.score_trace(row["question"], row["answer"])
        fresh = score.score_trace(row["question"], row["answer"], config=score.RAFSConfig(),
                                  verifier=SymbolicVerifier())
        assert shared.to_dict() == fresh.to_dict()
    assert score.DEFAULT_CONFIGS["scoring"].weights == weights  # scoring writes nothing to the shared config


def test_lower_case_r_claim_search_matches_the_pattern():
    pieces = ["12 R 3", "12r", "12 r", "R", "r", "for", "per", "year ", "{r}", ",r", ";R.", "r_", "rx", "\n", " ", "5",
              "É", "İ", "\u212a", "Ŕ", "\\,R", "ir ", "_"]
    rng = random.Random(12)
    texts = [s for steps, _ in _step_lists()[:400] for s in steps]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(20000)]
    found = 0
    for text in texts:
        slow = congruences._PREFILTER_R_FIRST.search(text) is not None
        assert congruences._has_r_claim(text, text.lower()) == slow, text
        found += slow
    assert found > 1000


def test_reversed_call_search_matches_the_pattern():
    pieces = ["c(", "p (", "C(5, 2)", "P_3", "cp", "(", "c", "p", " ", "\t", "\n", "x(", "c  (", "(c", "ap(", "5"]
    rng = random.Random(13)
    texts = [s.lower() for steps, _ in _step_lists()[:400] for s in steps]
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(0, 8))) for _ in range(20000)]
    found = 0
    for text in texts:
        slow = sequences._PREFILTER_CALL.search(text) is not None
        assert (sequences._PREFILTER_CALL_REVERSED.search(text[::-1]) is not None) == slow, text
        found += slow
    assert found > 1000


def test_trace_checks_keep_text_steps_and_blank_the_others():
    from rewards.checks.claims import trace_checks

    steps = ["x = 5", "48 is divisible by 7.", "The remainder when 17 is divided by 5 is 3."]
    expected = trace_checks(tuple(steps))
    assert expected  # a refuted claim to compare
    assert trace_checks(steps) == expected and trace_checks(iter(steps)) == expected
    assert len(trace_checks([None, "48 is divisible by 7."])) == 1
    assert trace_checks(["x = 5", None, *steps[1:]]) == trace_checks(("x = 5", "", *steps[1:])) != []
    assert trace_checks(("x = 5", 7, *steps[1:])) == trace_checks(("x = 5", "", *steps[1:]))


def test_equivalence_skipped_without_a_lettered_side_finds_what_the_pairs_find(step_lists, monkeypatch):
    from rewards.checks.claims import equivalence

    fast = [equivalence.check_trace(steps, problem) for steps, problem in step_lists]
    assert sum(not equivalence._has_unknowns(steps) for steps, _ in step_lists) > 100
    monkeypatch.setattr(equivalence, "_has_unknowns", lambda steps: True)
    assert [equivalence.check_trace(steps, problem) for steps, problem in step_lists] == fast
    assert sum(map(len, fast)) >= 10


def test_trace_gates_on_long_adversarial_traces_stay_bounded():
    import time

    from rewards.checks.claims import trace_checks

    rng = random.Random(14)
    pieces = ["1 ", "r ", "x =", " " * 40, "<", "(", "c (", "=", "\\\\", "$$", "answer", "R", "_1", "a" * 30, "\n"]
    steps = ["".join(rng.choice(pieces) for _ in range(120))[:1_500] for _ in range(150)]
    start = time.perf_counter()
    trace_checks(steps, "")
    revisions._may_cue(steps)
    trace_module._stated_phrases("answer is " * 2_000)
    assert time.perf_counter() - start < 5.0
