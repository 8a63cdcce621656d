"""trainers.training.probes: answers, grading and the four confidence modes; failures are counted, never raised."""

from __future__ import annotations

import math

import pytest

from trainers.training.probes import (
    CONFIDENCE_MODES,
    Generation,
    HFGenerator,
    _answer_span_logprob,
    normalise_probe_set,
    parse_keep_withdraw,
    parse_verbalized,
    run_probe,
)

PROBE = [{"problem": f"What is {a} + 3?", "answer": str(a + 3)} for a in range(6)]


def scripted(answer_of, confidence_reply):
    """A generator that answers turn 1 with answer_of(problem) and turn 2 with confidence_reply(problem)."""

    def gen(prompts, max_new_tokens, want_scores=False):
        out = []
        for p in prompts:
            problem = p[0]["content"]
            out.append(Generation(answer_of(problem) if len(p) == 1 else confidence_reply(problem)))
        return out

    return gen


def right_if_even(problem: str) -> str:
    a = int(problem.split()[2])
    return f"{a} + 3 = {a + 3}\n#### {a + 3 if a % 2 == 0 else a + 4}"


def test_verbalized_grades_with_is_correct_and_parses_numbers():
    res = run_probe(None, None, PROBE, generator=scripted(right_if_even, lambda p: "I am 80% sure"))
    assert res.correct == [True, False, True, False, True, False]
    assert res.confidence == [80.0] * 6
    assert res.n_unparseable == 0 and res.n_failed == 0 and res.accuracy == 0.5
    assert res.screen_scale == "percent"


def test_unparseable_confidences_are_counted_and_excluded():
    replies = iter(["90", "no idea", "75", "very sure", "101", "60"])
    res = run_probe(None, None, PROBE, generator=scripted(right_if_even, lambda p: next(replies)))
    assert res.n_unparseable == 3
    assert res.confidence == [90.0, 75.0, 60.0]
    assert res.correct == [True, True, False]  # items 0, 2 and 5
    assert res.records[1].confidence_raw == "no idea" and res.records[1].confidence is None


def test_keep_withdraw_maps_to_binary():
    res = run_probe(None, None, PROBE, confidence="keep_withdraw",
                    generator=scripted(right_if_even, lambda p: "KEEP" if int(p.split()[2]) % 2 == 0 else "WITHDRAW"))
    assert res.confidence == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert res.screen_scale == "binary"


def test_rafs_confidence_scores_the_answers_reasoning():
    res = run_probe(None, None, PROBE, confidence="rafs", generator=scripted(right_if_even, lambda p: ""))
    assert len(res.confidence) + res.n_unparseable == 6
    assert all(0.0 <= c <= 100.0 for c in res.confidence)
    # A chain "a + 3 = a+3" that then states a different answer is less faithful than one that agrees.
    by_item = {i: r.confidence for i, r in enumerate(res.records)}
    if by_item[0] is not None and by_item[1] is not None:
        assert by_item[0] > by_item[1]


def test_generation_error_becomes_failed_probe_with_reason():
    def broken(prompts, max_new_tokens, want_scores=False):
        raise RuntimeError("CUDA out of memory")

    res = run_probe(None, None, PROBE, generator=broken)
    assert res.n_failed == 6 and res.correct == [] and res.confidence == []
    assert "CUDA out of memory" in res.failures[0]
    assert all("generation failed" in r.error for r in res.records)


def test_partial_failure_only_fails_its_batch():
    calls = {"n": 0}

    def flaky(prompts, max_new_tokens, want_scores=False):
        calls["n"] += 1
        if calls["n"] == 2:
            raise ValueError("boom")
        return scripted(right_if_even, lambda p: "50")(prompts, max_new_tokens)

    res = run_probe(None, None, PROBE, generator=flaky, batch_size=3)
    assert res.n_failed == 3 and len(res.correct) == 3


def test_token_prob_uses_the_answer_span_only():
    text = "3 + 4 = 7\n#### 7"
    # tokens: "3 + 4 = 7\n", "#### ", "7"
    gen = Generation(text, token_logprobs=[-5.0, -5.0, -0.1], token_offsets=[10, 15, 16])
    assert _answer_span_logprob(gen, "mean") == pytest.approx(0.904837, rel=1e-5)
    assert _answer_span_logprob(Generation("no answer", [-1.0], [9]), "mean") is None


def test_token_prob_and_hf_generator_on_a_tiny_model(tiny_model_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny_model_path)
    tok = AutoTokenizer.from_pretrained(tiny_model_path)
    model.train()
    tok.padding_side = "right"
    gens = HFGenerator(model, tok, batch_size=2)([[{"role": "user", "content": p["problem"]}] for p in PROBE[:3]],
                                                 5, want_scores=True)
    assert len(gens) == 3
    for g in gens:
        assert len(g.token_logprobs) == len(g.token_offsets) <= 5
        assert all(lp <= 0.0 for lp in g.token_logprobs)
    assert model.training and tok.padding_side == "right"  # restored
    res = run_probe(model, tok, PROBE, confidence="token_prob", max_new_tokens=6)
    assert res.n_items == 6 and res.n_failed == 0
    assert len(res.confidence) + res.n_unparseable == 6
    assert all(0.0 <= c <= 1.0 for c in res.confidence)


@pytest.mark.parametrize("reply,value", [("85", 85.0), ("Confidence: 100%", 100.0), ("0", 0.0), ("I'd say 72.5.", 72.5),
                                          ("", None), ("sure", None), ("250", None)])
def test_parse_verbalized(reply, value):
    assert parse_verbalized(reply) == value


def test_parse_keep_withdraw():
    assert parse_keep_withdraw("keep") is True
    assert parse_keep_withdraw("I WITHDRAW my answer") is False
    assert parse_keep_withdraw("to keep it or to withdraw it") is None  # ambiguous: both words
    assert parse_keep_withdraw("maybe") is None


def test_probe_set_errors_name_the_field_and_the_fix():
    with pytest.raises(ValueError, match=r"probe_set\[1\] has no gold answer.*'answer'"):
        normalise_probe_set([{"problem": "1+1?", "answer": "2"}, {"problem": "2+2?"}])
    with pytest.raises(ValueError, match="probe_set is empty"):
        normalise_probe_set([])
    with pytest.raises(ValueError, match="no problem text"):
        normalise_probe_set([{"answer": "2"}])
    with pytest.raises(ValueError, match="confidence='loud'"):
        run_probe(None, None, PROBE, confidence="loud")
    assert set(CONFIDENCE_MODES) == {"verbalized", "keep_withdraw", "token_prob", "rafs"}


def test_probe_set_aliases_and_gsm8k_solutions():
    items = normalise_probe_set([{"question": "Q?", "solution": "2 + 2 = 4\n#### 4"}])
    assert items == [{"problem": "Q?", "answer": "2 + 2 = 4\n#### 4"}]


# ------------------------------------------------------------------------------------------------------------------
# The shipped probe set and the short answer style (the cheap token-probability screen)
# ------------------------------------------------------------------------------------------------------------------

def test_default_probe_set_is_shipped_distinct_graded_and_rebuilt_by_its_program():
    import tomllib
    from pathlib import Path

    from rewards.checks.answers import gold_answer
    from trainers.training.probes import PROBE_SET_PATH, build_probe_set, default_probe_set

    items = default_probe_set()
    assert 50 <= len(items) <= 100
    assert len({it["problem"] for it in items}) == len(items)  # distinct items, not copies of one question
    assert all(gold_answer(it["answer"]) == it["answer"] for it in items)
    assert normalise_probe_set(items) == [{"problem": it["problem"], "answer": it["answer"]} for it in items]
    assert items == build_probe_set()  # the file is what its documented program writes
    assert len({it["family"] for it in items}) == 5
    assert default_probe_set(limit=10) == items[:10]
    with pytest.raises(ValueError, match="limit=0 must be a positive integer"):
        default_probe_set(limit=0)
    # shipped as package data: pyproject's package-data pattern covers the file
    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    patterns = pyproject["tool"]["setuptools"]["package-data"]["trainers"]
    assert any(PROBE_SET_PATH.relative_to(PROBE_SET_PATH.parents[2]).match(p) for p in patterns)


def test_short_answer_is_the_first_number():
    from trainers.training.probes import short_answer

    assert short_answer("12. To find the answer, 3 + 4") == ("12", 0, 2)
    assert short_answer(" -3 apples") == ("-3", 1, 3)
    assert short_answer("1,200 dollars.") == ("1,200", 0, 5)
    assert short_answer("seven.\nThen") == ("seven.", 0, 6)
    assert short_answer("") is None and short_answer("  \n") is None


class ShortScripted:
    """Turn 1 in the short style: records the prompts, answers '<n>.' with per-token logprobs."""

    def __init__(self, replies):
        self.replies, self.prompts, self.calls = replies, [], []

    def __call__(self, prompts, max_new_tokens, want_scores=False):
        self.calls.append((len(prompts), max_new_tokens, want_scores))
        out = []
        for p in prompts:
            self.prompts.append(p)
            problem = next(m["content"] for m in p if m["role"] == "user")
            text, logprobs = self.replies[problem]
            offsets, pos = [], 0
            for piece in text.split("|"):
                pos += len(piece)
                offsets.append(pos)
            out.append(Generation(text.replace("|", ""), logprobs, offsets))
        return out


def test_token_prob_short_style_scores_only_the_answer_tokens():
    from trainers.training.probes import SHORT_PREFILL

    replies = {"What is 0 + 3?": ("3|.", [-0.1, -3.0]),            # right, sure
               "What is 1 + 3?": ("5|.", [-2.0, -0.01]),           # wrong, unsure
               "What is 2 + 3?": ("1|2|.| To", [-0.5, -1.5, -0.2, -4.0]),  # wrong, two digit tokens
               "What is 3 + 3?": ("six|.", [-0.7, -0.1]),          # no number: wrong, the line's probability
               "What is 4 + 3?": ("", []),                         # empty reply: no confidence
               "What is 5 + 3?": ("8|\n", [-0.3, -0.2])}
    gen = ShortScripted(replies)
    res = run_probe(None, None, PROBE, confidence="token_prob", generator=gen)
    assert res.answer_style == "short" and res.max_new_tokens == 2  # the longest gold answer '8' and its end
    assert gen.calls == [(6, 2, True)]  # one generate call for the whole probe, 2 new tokens, with scores
    first = gen.prompts[0]
    assert first[0] == {"role": "system", "content": ""}  # spares the template's default system prompt
    assert first[-1] == {"role": "assistant", "content": SHORT_PREFILL}
    assert first[1]["content"] == "What is 0 + 3?"  # no '####' instruction in the short style
    recs = res.records
    assert [r.correct for r in recs] == [True, False, False, False, False, True]
    assert recs[0].confidence == pytest.approx(math.exp(-0.1))
    assert recs[1].confidence == pytest.approx(math.exp(-2.0))
    assert recs[2].confidence == pytest.approx(math.exp(-1.0))  # mean of the digits '1', '2'; not '.' nor ' To'
    assert recs[3].confidence == pytest.approx(math.exp(-0.4))
    assert recs[4].confidence is None and res.n_unparseable == 1
    assert recs[0].response == SHORT_PREFILL + "3."
    assert res.correct == [True, False, False, False, True]


def test_short_style_options_and_errors():
    replies = {p["problem"]: ("7|.", [-0.2, -0.1]) for p in PROBE}
    gen = ShortScripted(replies)
    res = run_probe(None, None, PROBE, confidence="token_prob", generator=gen, system_prompt=None, batch_size=4,
                    max_new_tokens=3)
    assert [c[0] for c in gen.calls] == [4, 2] and gen.calls[0][1] == 3
    assert gen.prompts[0][0]["role"] == "user"  # system_prompt=None: the template's own
    assert res.correct == [False, False, False, False, True, False]  # only 4 + 3 = 7
    # verbalized after a short answer: the second turn sees the prefilled answer, not the prefill twice
    seen = []

    def two_turns(prompts, max_new_tokens, want_scores=False):
        seen.extend(prompts)
        return [Generation("80" if p[-1]["content"].startswith("Confidence") else "7.") for p in prompts]

    res = run_probe(None, None, PROBE[:2], confidence="verbalized", answer_style="short", generator=two_turns)
    assert res.confidence == [80.0, 80.0]
    second = seen[-1]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user", "assistant"]
    assert second[2]["content"] == "The answer is 7."
    # reasoning style (the default of the other modes) is unchanged: no system message, the #### instruction
    seen.clear()
    run_probe(None, None, PROBE[:1], generator=two_turns)
    instruction = "Solve the problem. Put the final answer after ####."
    assert seen[0] == [{"role": "user", "content": f"What is 0 + 3?\n{instruction}"}]
    with pytest.raises(ValueError, match="answer_style='long'"):
        run_probe(None, None, PROBE, answer_style="long")
    with pytest.raises(ValueError, match="confidence='rafs' scores the answer's reasoning"):
        run_probe(None, None, PROBE, confidence="rafs", answer_style="short")


def test_short_style_on_a_tiny_model_drops_the_system_message_a_template_refuses(tiny_model_path):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    model = AutoModelForCausalLM.from_pretrained(tiny_model_path)
    tok = AutoTokenizer.from_pretrained(tiny_model_path)
    tok.chat_template = ("{% for m in messages %}{% if m['role'] == 'system' %}{{ raise_exception('System role "
                         "not supported') }}{% endif %}{{ m['role'] + ': ' + m['content'] + '\\n' }}{% endfor %}"
                         "{% if add_generation_prompt %}{{ 'assistant: ' }}{% endif %}")
    with pytest.raises(Exception, match="System role not supported"):
        tok.apply_chat_template([{"role": "system", "content": ""}], tokenize=False)
    res = run_probe(model, tok, PROBE, confidence="token_prob")
    assert res.n_failed == 0 and res.n_items == 6 and res.answer_style == "short"
    assert all(r.response.startswith("The answer is ") for r in res.records)
    assert all(0.0 <= c <= 1.0 for c in res.confidence)


def test_prompts_are_batched_by_length_and_replies_come_back_in_order():
    probe = [{"problem": "Q" + "x" * ((n % 5) * 10) + f" {n}", "answer": str(n)} for n in range(10)]
    batches = []

    def echo(prompts, max_new_tokens, want_scores=False):
        if len(prompts[0]) > 1:  # turn 2: the confidence
            return [Generation("50") for _ in prompts]
        batches.append([len(p[0]["content"]) for p in prompts])
        return [Generation("#### " + p[0]["content"].split("\n")[0].split()[-1]) for p in prompts]

    res = run_probe(None, None, probe, generator=echo, batch_size=4)
    assert res.correct == [True] * 10  # every reply went back to its own item
    assert [len(b) for b in batches] == [4, 4, 2]
    assert all(max(a) <= min(b) for a, b in zip(batches, batches[1:]))  # shortest prompts first


def test_a_failed_batch_names_its_items():
    def broken_long(prompts, max_new_tokens, want_scores=False):
        if any("long" in p[0]["content"] for p in prompts):
            raise RuntimeError("out of memory")
        return [Generation("#### 1") for _ in prompts]

    probe = [{"problem": f"What is {i}?" + (" long" * 20 if i in (1, 4) else ""), "answer": "1"} for i in range(6)]
    res = run_probe(None, None, probe, generator=broken_long, batch_size=2, confidence="rafs")
    assert [r.error is not None for r in res.records] == [False, True, False, False, True, False]
    assert res.failures == ["items 1, 4: generation failed: RuntimeError: out of memory"]
