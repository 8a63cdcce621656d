"""Elicit answers and confidences from a model on a probe set, for the validity screen.

A probe set is a list of ``{"problem": ..., "answer": ...}`` items (``answer`` is a bare gold answer or a GSM8K
solution ending in ``#### X``; ``question``/``solution`` are accepted as aliases). For each item the model answers
greedily (batched ``generate``, bounded ``max_new_tokens``); the answer is graded with
:func:`rewards.checks.answers.is_correct`; then one confidence is elicited in one of four modes:

* ``verbalized`` (default): a second turn asks "How confident are you that your answer is correct? Reply with a
  number from 0 to 100." and the first number in the reply (0-100) is the confidence;
* ``keep_withdraw``: the second turn asks for KEEP or WITHDRAW (KEEP = high confidence);
* ``token_prob``: the probability of the answer span under the model, ``exp(mean token logprob)`` (or the minimum
  with ``token_prob_reduce="min"``) from the generation scores of the first turn; no second generation;
* ``rafs``: the RAFS score (0-100) of the answer's own reasoning (:func:`rewards.scoring.score.score_trace`).

A confidence that cannot be parsed is counted (``n_unparseable``) and the item is left out of ``correct`` /
``confidence``; a generation error turns the items of its batch into failed probes with the reason
(``n_failed``, ``failures``) instead of raising.

Generation goes through a *generator*: ``generator(prompts, max_new_tokens, want_scores) -> list[Generation]``.
The default, :class:`HFGenerator`, wraps a transformers model and tokenizer; tests pass a stub to make the
model's answers and confidences deterministic.

>>> def stub(prompts, max_new_tokens, want_scores=False):          # always "#### 7", always 95% sure
...     return [Generation("95" if "confident" in str(p) else "3 + 4 = 7\\n#### 7") for p in prompts]
>>> res = run_probe(None, None, [{"problem": "What is 3 + 4?", "answer": "7"},
...                              {"problem": "What is 2 + 2?", "answer": "4"}], generator=stub)
>>> res.correct, res.confidence, res.n_unparseable
([True, False], [95.0, 95.0], 0)
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Mapping, Protocol, Sequence

__all__ = [
    "CONFIDENCE_MODES",
    "ANSWER_INSTRUCTION",
    "VERBALIZED_QUESTION",
    "CONFIDENCE_PREFILL",
    "KEEP_WITHDRAW_QUESTION",
    "Generation",
    "Generator",
    "HFGenerator",
    "ProbeRecord",
    "ProbeResult",
    "normalise_probe_set",
    "parse_verbalized",
    "parse_keep_withdraw",
    "run_probe",
]

log = logging.getLogger(__name__)

CONFIDENCE_MODES = ("verbalized", "keep_withdraw", "token_prob", "rafs")
ANSWER_INSTRUCTION = "Solve the problem. Put the final answer after ####."
VERBALIZED_QUESTION = "How confident are you that your answer is correct? Reply with a number from 0 to 100."
KEEP_WITHDRAW_QUESTION = ("Do you stand by your answer? Reply KEEP to keep it or WITHDRAW to withdraw it. "
                          "Reply with one word.")
#: The start of the model's confidence reply, written for it (a prefill): small models otherwise start a new
#: explanation instead of answering with a number or a word. The parsers read only what the model adds.
CONFIDENCE_PREFILL = {"verbalized": "Confidence (0-100):", "keep_withdraw": "Decision (KEEP or WITHDRAW):"}

#: The screen's reading of each mode's numbers (see :func:`trainers.screen.screen`'s ``scale``).
SCREEN_SCALE = {"verbalized": "percent", "keep_withdraw": "binary", "token_prob": "unit", "rafs": "percent"}


@dataclass
class Generation:
    """One generated reply; ``token_logprobs`` / ``token_offsets`` only when scores were asked for.

    ``token_offsets[i]`` is the character offset in ``text`` where generated token ``i`` ends.
    """

    text: str
    token_logprobs: list[float] | None = None
    token_offsets: list[int] | None = None


class Generator(Protocol):
    def __call__(self, prompts: Sequence[Any], max_new_tokens: int, want_scores: bool = False) -> list[Generation]:
        """One reply per prompt; a prompt is a list of chat messages (or a plain string)."""
        ...


@dataclass
class ProbeRecord:
    """One probe item: what the model said, whether it was right, and how confident it was."""

    problem: str
    gold: str
    response: str | None = None
    correct: bool | None = None
    confidence: float | None = None
    confidence_raw: str | None = None
    error: str | None = None


@dataclass
class ProbeResult:
    """The probe of one model: per-item records and the lists the screen takes.

    ``correct`` and ``confidence`` hold only the items with a parseable confidence and no generation error.
    """

    mode: str
    records: list[ProbeRecord]
    correct: list[bool]
    confidence: list[float]
    n_items: int
    n_unparseable: int
    n_failed: int
    failures: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0

    @property
    def accuracy(self) -> float | None:
        graded = [r.correct for r in self.records if r.correct is not None]
        return sum(graded) / len(graded) if graded else None

    @property
    def screen_scale(self) -> str:
        return SCREEN_SCALE[self.mode]

    def to_dict(self, include_records: bool = False) -> dict[str, Any]:
        d = {"mode": self.mode, "n_items": self.n_items, "n_screened": len(self.correct),
             "n_unparseable": self.n_unparseable, "n_failed": self.n_failed, "failures": self.failures[:20],
             "accuracy": self.accuracy, "elapsed_s": round(self.elapsed_s, 3)}
        if include_records:
            d["records"] = [asdict(r) for r in self.records]
        return d


# ----------------------------------------------------------------------------------------------------------------
# Probe set and parsing
# ----------------------------------------------------------------------------------------------------------------

def normalise_probe_set(probe_set: Any, *, field_name: str = "probe_set") -> list[dict[str, str]]:
    """Check a probe set and return it as ``[{"problem", "answer"}]`` (the answer reduced to the gold answer).

    Accepts a list of mappings or a ``datasets.Dataset``; ``question`` is an alias of ``problem`` and ``solution``
    of ``answer``. Raises ``ValueError`` naming the field, the offending item and the fix.
    """
    from rewards.checks.answers import gold_answer

    if probe_set is None or isinstance(probe_set, (str, bytes)):
        raise ValueError(f"{field_name}={probe_set!r}: pass a list of {{'problem': ..., 'answer': ...}} items "
                         "(or a datasets.Dataset with those columns).")
    items = list(probe_set)
    if not items:
        raise ValueError(f"{field_name} is empty: pass at least 10 {{'problem', 'answer'}} items "
                         "(20-50 make a useful screen).")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise ValueError(f"{field_name}[{i}]={item!r:.80} is not a mapping; pass {{'problem': ..., "
                             "'answer': ...}} items.")
        problem = item.get("problem", item.get("question", item.get("prompt")))
        gold_field = item.get("answer", item.get("solution"))
        if problem is None or not str(problem).strip():
            raise ValueError(f"{field_name}[{i}] has no problem text (keys {sorted(item)}); add a 'problem' "
                             "(or 'question') field.")
        if gold_field is None or gold_answer(str(gold_field)) is None:
            raise ValueError(f"{field_name}[{i}] has no gold answer (answer={gold_field!r:.60}); the screen "
                             "grades answers, so every probe item needs an 'answer' (or 'solution') field with "
                             "a final answer, e.g. '7' or a GSM8K solution ending in '#### 7'.")
        if isinstance(problem, list):  # conversational prompt: keep the last user message
            users = [m.get("content", "") for m in problem if isinstance(m, Mapping) and m.get("role") == "user"]
            problem = users[-1] if users else str(problem)
        out.append({"problem": str(problem), "answer": str(gold_field)})
    return out


_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d+)?)\s*(%?)")


def parse_verbalized(reply: str) -> float | None:
    """The first number in [0, 100] in a reply to the 0-100 question, or ``None``.

    >>> parse_verbalized("I am 85% sure."), parse_verbalized("Confidence: 100"), parse_verbalized("very sure")
    (85.0, 100.0, None)
    >>> parse_verbalized("0.9")     # a probability where a percentage was asked for
    90.0
    """
    if not reply:
        return None
    for m in _NUMBER.finditer(reply):
        v = float(m.group(1))
        if "." in m.group(1) and v <= 1.0 and not m.group(2):  # "0.95": a probability, not 0.95 percent
            v *= 100.0
        if 0.0 <= v <= 100.0:
            return v
        return None
    return None


def parse_keep_withdraw(reply: str) -> bool | None:
    """``True`` for KEEP, ``False`` for WITHDRAW; ``None`` when the reply has neither word or both (ambiguous,
    e.g. a model that repeats the question "to keep it or to withdraw it").

    >>> parse_keep_withdraw("KEEP."), parse_keep_withdraw("I would withdraw it"), parse_keep_withdraw("maybe")
    (True, False, None)
    >>> parse_keep_withdraw(" to keep it or to withdraw it.") is None
    True
    """
    words = {w.lower() for w in re.findall(r"\b(keep|withdraw)\b", reply or "", re.IGNORECASE)}
    if len(words) != 1:
        return None
    return words.pop() == "keep"


# ----------------------------------------------------------------------------------------------------------------
# Generation with a transformers model
# ----------------------------------------------------------------------------------------------------------------

class HFGenerator:
    """Greedy, batched generation with a transformers causal LM (or a PEFT model around one).

    Prompts that are message lists go through the tokenizer's chat template (``add_generation_prompt=True``);
    plain strings are used as they are. The model is put in eval mode for the call and restored afterwards.
    """

    def __init__(self, model: Any, tokenizer: Any, *, batch_size: int = 16):
        if tokenizer is None:
            raise ValueError("tokenizer=None: the probe needs the model's tokenizer; pass processing_class= to the "
                             "callback or tokenizer= to run_probe.")
        self.model, self.tokenizer, self.batch_size = model, getattr(tokenizer, "tokenizer", tokenizer), batch_size

    def _text(self, prompt: Any) -> str:
        if isinstance(prompt, str):
            return prompt
        messages, prefill = list(prompt), ""
        if messages and messages[-1].get("role") == "assistant":  # a prefilled start of the reply
            prefill = messages.pop()["content"]
        if getattr(self.tokenizer, "chat_template", None):
            text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        else:
            text = "\n\n".join(f"{m['role']}: {m['content']}" for m in messages) + "\n\nassistant: "
        return text + prefill

    def __call__(self, prompts: Sequence[Any], max_new_tokens: int, want_scores: bool = False) -> list[Generation]:
        import torch

        tok, model = self.tokenizer, self.model
        texts = [self._text(p) for p in prompts]
        was_training = model.training
        side = tok.padding_side
        tok.padding_side = "left"
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        out: list[Generation] = []
        try:
            model.eval()
            device = next(model.parameters()).device
            for start in range(0, len(texts), self.batch_size):
                batch = texts[start:start + self.batch_size]
                enc = tok(batch, return_tensors="pt", padding=True, add_special_tokens=False).to(device)
                with torch.no_grad():
                    gen = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, temperature=None,
                                         top_p=None, top_k=None, pad_token_id=tok.pad_token_id, use_cache=True,
                                         output_scores=want_scores, return_dict_in_generate=True)
                new = gen.sequences[:, enc["input_ids"].shape[1]:]
                logprobs = None
                if want_scores:
                    logprobs = model.compute_transition_scores(gen.sequences, gen.scores, normalize_logits=True)
                for i in range(new.shape[0]):
                    ids = new[i].tolist()
                    n = _content_length(ids, tok)
                    text = tok.decode(ids[:n], skip_special_tokens=True)
                    if not want_scores:
                        out.append(Generation(text))
                        continue
                    lp = [float(x) for x in logprobs[i, :n].tolist()]
                    offsets = [len(tok.decode(ids[:k + 1], skip_special_tokens=True)) for k in range(n)]
                    out.append(Generation(text, lp, offsets))
        finally:
            tok.padding_side = side
            if was_training:
                model.train()
        return out


def _content_length(ids: list[int], tok: Any) -> int:
    """Number of generated tokens before the first eos / pad."""
    stop = {t for t in (tok.eos_token_id, tok.pad_token_id) if t is not None}
    for k, t in enumerate(ids):
        if t in stop:
            return k
    return len(ids)


def _answer_span_logprob(gen: Generation, reduce: str) -> float | None:
    """``exp(mean)`` (or ``exp(min)``) of the logprobs of the tokens that spell the final answer."""
    from rewards.parsing.trace import extract_final_answer

    if not gen.token_logprobs or not gen.token_offsets:
        return None
    answer, _ = extract_final_answer(gen.text)
    if not answer:
        return None
    end = gen.text.rfind(answer)
    if end < 0:
        return None
    lo, hi = end, end + len(answer)
    picked, prev = [], 0
    for lp, off in zip(gen.token_logprobs, gen.token_offsets):
        if off > lo and prev < hi and math.isfinite(lp):  # the token's span [prev, off) overlaps the answer
            picked.append(lp)
        prev = off
    if not picked:
        return None
    value = sum(picked) / len(picked) if reduce == "mean" else min(picked)
    return float(math.exp(value))


# ----------------------------------------------------------------------------------------------------------------
# The probe
# ----------------------------------------------------------------------------------------------------------------

def _answer_prompt(problem: str, instruction: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": f"{problem}\n{instruction}".strip()}]


def run_probe(model: Any, tokenizer: Any, probe_set: Any, *, confidence: str = "verbalized",
              max_new_tokens: int = 128, confidence_max_new_tokens: int = 8, batch_size: int = 16,
              instruction: str = ANSWER_INSTRUCTION, token_prob_reduce: str = "mean",
              generator: Generator | Callable[..., list[Generation]] | None = None,
              prefill: bool = True) -> ProbeResult:
    """Probe ``model`` on ``probe_set``: greedy answers, grading, and one confidence per item.

    Args:
        model, tokenizer: a transformers causal LM and its tokenizer (ignored when ``generator`` is given).
        probe_set: ``[{"problem", "answer"}]`` (see :func:`normalise_probe_set`).
        confidence: one of :data:`CONFIDENCE_MODES`.
        max_new_tokens: bound on the answer's length; ``confidence_max_new_tokens`` on the confidence reply's.
        generator: replaces the model's generation (tests; other engines).
        prefill: start the confidence reply with :data:`CONFIDENCE_PREFILL` (a chat message with role
            ``assistant`` at the end of the prompt) so that the model's next tokens are the number / the word.

    Never raises on model output: failures are counted in the result. Raises ``ValueError`` on a wrong
    configuration (unknown mode, a probe set without gold answers).
    """
    from rewards.checks.answers import is_correct

    if confidence not in CONFIDENCE_MODES:
        raise ValueError(f"confidence={confidence!r} is not a confidence mode; use one of {CONFIDENCE_MODES}.")
    if token_prob_reduce not in ("mean", "min"):
        raise ValueError(f"token_prob_reduce={token_prob_reduce!r}: use 'mean' or 'min'.")
    items = normalise_probe_set(probe_set)
    t0 = time.perf_counter()
    gen = generator if generator is not None else HFGenerator(model, tokenizer, batch_size=batch_size)
    records = [ProbeRecord(problem=it["problem"], gold=it["answer"]) for it in items]
    failures: list[str] = []
    want_scores = confidence == "token_prob"

    # Turn 1: the answers.
    prompts = [_answer_prompt(r.problem, instruction) for r in records]
    answers = _safe_generate(gen, prompts, max_new_tokens, want_scores, batch_size, failures)
    for rec, g in zip(records, answers):
        if isinstance(g, str):
            rec.error = g
            continue
        rec.response = g.text
        try:
            rec.correct = bool(is_correct(g.text, rec.gold))
        except Exception as exc:  # noqa: BLE001 - grading untrusted text must not stop the screen
            rec.error = f"grading failed: {type(exc).__name__}: {exc}"

    live = [i for i, r in enumerate(records) if r.error is None]
    # Turn 2 (or no turn): the confidences.
    if confidence in ("verbalized", "keep_withdraw") and live:
        question = VERBALIZED_QUESTION if confidence == "verbalized" else KEEP_WITHDRAW_QUESTION
        conv = [prompts[i] + [{"role": "assistant", "content": records[i].response or ""},
                              {"role": "user", "content": question}] for i in live]
        if prefill:
            conv = [c + [{"role": "assistant", "content": CONFIDENCE_PREFILL[confidence]}] for c in conv]
        replies = _safe_generate(gen, conv, confidence_max_new_tokens, False, batch_size, failures)
        parse = parse_verbalized if confidence == "verbalized" else parse_keep_withdraw
        for i, g in zip(live, replies):
            rec = records[i]
            if isinstance(g, str):
                rec.error = g
                continue
            rec.confidence_raw = g.text
            value = parse(g.text)
            rec.confidence = None if value is None else float(value)
    elif confidence == "token_prob":
        for i in live:
            rec, g = records[i], answers[i]
            rec.confidence = _answer_span_logprob(g, token_prob_reduce)
            rec.confidence_raw = None if rec.confidence is None else f"{rec.confidence:.6f}"
    elif confidence == "rafs":
        from rewards.scoring.score import score_trace

        for i in live:
            rec = records[i]
            try:
                result = score_trace(rec.problem, rec.response)
                rec.confidence = result.score
                rec.confidence_raw = result.status
            except Exception as exc:  # noqa: BLE001
                rec.error = f"RAFS failed: {type(exc).__name__}: {exc}"

    correct, conf = [], []
    n_unparseable = 0
    for rec in records:
        if rec.error is not None:
            continue
        if rec.confidence is None or not math.isfinite(rec.confidence):
            n_unparseable += 1
            continue
        correct.append(bool(rec.correct))
        conf.append(float(rec.confidence))
    n_failed = sum(r.error is not None for r in records)
    return ProbeResult(mode=confidence, records=records, correct=correct, confidence=conf, n_items=len(records),
                       n_unparseable=n_unparseable, n_failed=n_failed, failures=failures,
                       elapsed_s=time.perf_counter() - t0)


def _safe_generate(gen: Callable[..., list[Generation]], prompts: list[Any], max_new_tokens: int,
                   want_scores: bool, batch_size: int, failures: list[str]) -> list[Generation | str]:
    """Generate in chunks; a chunk that raises becomes one error string per prompt (and one line in failures)."""
    out: list[Generation | str] = []
    for start in range(0, len(prompts), max(1, batch_size)):
        chunk = prompts[start:start + batch_size]
        try:
            got = list(gen(chunk, max_new_tokens, want_scores))
            if len(got) != len(chunk):
                raise RuntimeError(f"generator returned {len(got)} replies for {len(chunk)} prompts")
            got = [g if isinstance(g, Generation) else Generation(str(g)) for g in got]
        except Exception as exc:  # noqa: BLE001 - a probe failure is reported, not raised
            reason = f"generation failed: {type(exc).__name__}: {exc}"
            log.warning("probe items %d-%d: %s", start, start + len(chunk) - 1, reason)
            failures.append(f"items {start}-{start + len(chunk) - 1}: {reason}")
            got = [reason] * len(chunk)
        out.extend(got)
    return out
