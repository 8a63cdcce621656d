"""Elicit answers and confidences from a model on a probe set, for the validity screen.

A probe set is a list of ``{"problem": ..., "answer": ...}`` items (``answer`` is a bare gold answer or a GSM8K
solution ending in ``#### X``; ``question``/``solution`` are accepted as aliases). :func:`default_probe_set` is the
one shipped with the package (72 distinct easy arithmetic problems, ``trainers/training/data/probes.jsonl``). For each item
the model answers greedily (batched ``generate``, bounded ``max_new_tokens``) in one of two answer styles:

* ``short`` (the default for ``token_prob``): the model's reply is prefilled with :data:`SHORT_PREFILL`
  ("The answer is ") and it adds a few tokens; its answer is the first number it writes. One forward pass over the
  prompts and ``max_new_tokens - 1`` one-token steps (2 on the shipped set) in one batch: the 72 shipped items cost
  SmolLM2-135M 6 s (12 CPU-seconds) at a checkpoint on 2 CPU cores, against minutes for a worked answer;
* ``reasoning`` (the default for the other modes): it solves the problem in its own words and puts the final answer
  after ``####`` (``max_new_tokens`` default 128).

The answer is graded with :func:`rewards.checks.answers.is_correct`; then one confidence is elicited in one of four
modes:

* ``verbalized`` (the default): a second turn asks "How confident are you that your answer is correct? Reply with
  a number from 0 to 100." and the first number in the reply (0-100) is the confidence (a second generation per
  item);
* ``keep_withdraw``: the second turn asks for KEEP or WITHDRAW (KEEP = high confidence);
* ``token_prob``: the probability the model gave its own answer, ``exp(mean token logprob)`` over the tokens that
  spell the answer (or the minimum with ``token_prob_reduce="min"``), read from the scores of the answer's own
  generation; no second generation. With the ``short`` style this is the cheap screen of the README's GRPO quick
  start;
* ``rafs``: the RAFS score (0-100) of the answer's own reasoning (:func:`rewards.scoring.score.score_trace`;
  ``reasoning`` style only).

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
>>> probe = default_probe_set()
>>> len(probe), len({it["problem"] for it in probe}), probe[1]
(72, 72, {'problem': 'What is 2 x 6?', 'answer': '12', 'family': 'multiply'})
"""

from __future__ import annotations

import logging
import math
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

__all__ = [
    "CONFIDENCE_MODES",
    "ANSWER_STYLES",
    "ANSWER_INSTRUCTION",
    "SHORT_PREFILL",
    "DEFAULT_MAX_NEW_TOKENS",
    "DEFAULT_BATCH_SIZE",
    "PROBE_SET_PATH",
    "default_probe_set",
    "build_probe_set",
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
    "short_answer",
]

log = logging.getLogger(__name__)

CONFIDENCE_MODES = ("verbalized", "keep_withdraw", "token_prob", "rafs")
ANSWER_STYLES = ("short", "reasoning")
ANSWER_INSTRUCTION = "Solve the problem. Put the final answer after ####."
#: The start of the model's reply in the ``short`` answer style: the model's next tokens are its answer.
SHORT_PREFILL = "The answer is "
#: ``max_new_tokens`` when none is given: a worked solution in the reasoning style; in the short style the longest
#: gold answer's characters plus one (a correct answer and the character that ends it are always seen; 3 on the
#: shipped probe set), at most ``DEFAULT_MAX_NEW_TOKENS["short"]``.
DEFAULT_MAX_NEW_TOKENS = {"short": 16, "reasoning": 128}
#: ``batch_size`` when none is given. Short answers are one forward pass, cheapest in one large batch: 72 items of
#: SmolLM2-135M cost 25 CPU-seconds in one batch of 72, 72 in batches of 16 (measured on the 2-core machine).
DEFAULT_BATCH_SIZE = {"short": 128, "reasoning": 16}
#: The shipped probe set (see :func:`build_probe_set` for how it was made).
PROBE_SET_PATH = Path(__file__).resolve().parent / "data" / "probes.jsonl"
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
    answer_style: str = "reasoning"
    max_new_tokens: int | None = None

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
             "accuracy": self.accuracy, "elapsed_s": round(self.elapsed_s, 3), "answer_style": self.answer_style,
             "max_new_tokens": self.max_new_tokens}
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


def build_probe_set(seed: int = 2026) -> list[dict[str, str]]:
    """The program that wrote ``trainers/training/data/probes.jsonl``: 72 distinct one-step arithmetic problems.

    Five families, numbers drawn uniformly with ``random.Random(seed)``, no problem twice, then shuffled:
    24 single-digit sums (``What is 4 + 5?``), 12 differences (``What is 15 - 7?``), 12 products of single digits
    (``What is 6 x 7?``), 12 two-digit plus one-digit sums and 12 one-step word problems (add or take away). The
    families are chosen for SmolLM2-135M-Instruct answering in the ``short`` style: it gets about half of the sums
    and some of the rest right (measured: 22 of 72 at baseline, most of them sums), so the screen sees both right
    and wrong answers.
    The items are written by this program (MIT, as the package); they are not copied from a benchmark.

    >>> items = build_probe_set()
    >>> len(items), len({it["problem"] for it in items}), sorted({it["family"] for it in items})
    (72, 72, ['add_1digit', 'add_2digit', 'multiply', 'subtract', 'word'])
    """
    import random

    rng = random.Random(seed)
    names = ["Lena", "Omar", "Kai", "Rosa", "Ivan", "Nora"]
    things = [("cups", "on a shelf"), ("bikes", "in a yard"), ("eggs", "in a basket"), ("cars", "in a lot")]
    seen: set[str] = set()
    items: list[dict[str, str]] = []

    def draw(family: str, count: int, make: Callable[[], tuple[str, int]]) -> None:
        n = 0
        while n < count:
            problem, value = make()
            if problem in seen:
                continue
            seen.add(problem)
            items.append({"problem": problem, "answer": str(value), "family": family})
            n += 1

    def add1() -> tuple[str, int]:
        a, b = rng.randint(1, 9), rng.randint(1, 9)
        return f"What is {a} + {b}?", a + b

    def sub() -> tuple[str, int]:
        b, c = rng.randint(2, 9), rng.randint(1, 9)
        return f"What is {b + c} - {b}?", c

    def mul() -> tuple[str, int]:
        a, b = rng.randint(2, 9), rng.randint(2, 9)
        return f"What is {a} x {b}?", a * b

    def add2() -> tuple[str, int]:
        a, b = rng.randint(11, 49), rng.randint(2, 9)
        return f"What is {a} + {b}?", a + b

    def word() -> tuple[str, int]:
        name, (thing, where) = rng.choice(names), rng.choice(things)
        a, b = rng.randint(2, 9), rng.randint(2, 9)
        if rng.random() < 0.5:
            return f"There are {a} {thing} {where}. {name} adds {b} more. How many {thing} are there now?", a + b
        return f"There are {a + b} {thing} {where}. {name} takes {b} away. How many {thing} are left?", a

    for family, count, make in (("add_1digit", 24, add1), ("subtract", 12, sub), ("multiply", 12, mul),
                                ("add_2digit", 12, add2), ("word", 12, word)):
        draw(family, count, make)
    rng.shuffle(items)
    return items


def default_probe_set(limit: int | None = None) -> list[dict[str, str]]:
    """The probe set shipped with the package: ``trainers/training/data/probes.jsonl``, 72 distinct one-step arithmetic
    problems with gold answers (``problem``, ``answer``, ``family``), written by :func:`build_probe_set`.

    ``limit`` keeps the first ``limit`` items (the file is shuffled, so a prefix mixes the families).

    >>> probe = default_probe_set()
    >>> len(probe), probe[0]["answer"], len(default_probe_set(limit=24))
    (72, '8', 24)
    """
    import json

    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 1):
        raise ValueError(f"default_probe_set: limit={limit!r} must be a positive integer (or None for all items).")
    try:
        lines = PROBE_SET_PATH.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise FileNotFoundError(f"the shipped probe set {PROBE_SET_PATH} is missing ({exc}); reinstall rafs, or "
                                "pass your own [{'problem', 'answer'}] items") from None
    items = [json.loads(line) for line in lines if line.strip()]
    return items[:limit] if limit is not None else items


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
            try:
                text = self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            except Exception:  # noqa: BLE001 - e.g. a template that refuses system messages (Gemma)
                if not (messages and messages[0].get("role") == "system" and not messages[0].get("content")):
                    raise
                text = self.tokenizer.apply_chat_template(messages[1:], tokenize=False, add_generation_prompt=True)
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
                logprobs = None
                if want_scores:
                    logprobs = model.compute_transition_scores(gen.sequences, gen.scores, normalize_logits=True)
                out += self._decoded(gen.sequences[:, enc["input_ids"].shape[1]:], logprobs)
        finally:
            tok.padding_side = side
            if was_training:
                model.train()
        return out

    def _decoded(self, new, logprobs) -> list[Generation]:
        """Each row's new tokens up to its first eos / pad, as text; with ``logprobs`` (scores asked for) each
        token's log-probability and the text's length after it."""
        tok = self.tokenizer
        out: list[Generation] = []
        for i in range(new.shape[0]):
            ids = new[i].tolist()
            n = _content_length(ids, tok)
            text = tok.decode(ids[:n], skip_special_tokens=True)
            if logprobs is None:
                out.append(Generation(text))
                continue
            lp = [float(x) for x in logprobs[i, :n].tolist()]
            offsets = [len(tok.decode(ids[:k + 1], skip_special_tokens=True)) for k in range(n)]
            out.append(Generation(text, lp, offsets))
        return out


def _content_length(ids: list[int], tok: Any) -> int:
    """Number of generated tokens before the first eos / pad."""
    stop = {t for t in (tok.eos_token_id, tok.pad_token_id) if t is not None}
    for k, t in enumerate(ids):
        if t in stop:
            return k
    return len(ids)


_SHORT_ANSWER = re.compile(r"-?\d[\d,]*(?:\.\d+)?(?:/\d+)?")


def short_answer(text: str) -> tuple[str, int, int] | None:
    """The answer in a ``short``-style reply: the first number the model wrote after the prefill, as
    ``(answer, start, end)`` character offsets in ``text``; else the reply's first line (a wrong answer that still
    has token probabilities); ``None`` for an empty reply.

    >>> short_answer(" 12. To find"), short_answer(" twelve.\\nMore")
    (('12', 1, 3), ('twelve.', 1, 8))
    """
    m = _SHORT_ANSWER.search(text or "")
    if m:
        value = m.group(0).rstrip(",")
        return value, m.start(), m.start() + len(value)
    line = (text or "").lstrip().split("\n", 1)[0].strip()
    if not line:
        return None
    start = text.index(line)
    return line, start, start + len(line)


def _answer_span_logprob(gen: Generation, reduce: str, span: tuple[int, int] | None = None) -> float | None:
    """``exp(mean)`` (or ``exp(min)``) of the logprobs of the tokens that spell the final answer.

    ``span`` gives the answer's character offsets in ``gen.text``; by default the final answer of a worked solution
    (:func:`rewards.parsing.trace.extract_final_answer`, its last occurrence).
    """
    if not gen.token_logprobs or not gen.token_offsets:
        return None
    if span is None:
        from rewards.parsing.trace import extract_final_answer

        answer, _ = extract_final_answer(gen.text)
        if not answer:
            return None
        end = gen.text.rfind(answer)
        if end < 0:
            return None
        span = (end, end + len(answer))
    lo, hi = span
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
              max_new_tokens: int | None = None, confidence_max_new_tokens: int = 8, batch_size: int | None = None,
              instruction: str | None = None, token_prob_reduce: str = "mean",
              generator: Generator | Callable[..., list[Generation]] | None = None,
              prefill: bool = True, answer_style: str | None = None,
              system_prompt: str | None = "auto") -> ProbeResult:
    """Probe ``model`` on ``probe_set``: greedy answers, grading, and one confidence per item.

    Args:
        model, tokenizer: a transformers causal LM and its tokenizer (ignored when ``generator`` is given).
        probe_set: ``[{"problem", "answer"}]`` (see :func:`normalise_probe_set`, :func:`default_probe_set`).
        confidence: one of :data:`CONFIDENCE_MODES`; ``token_prob`` is the cheap one (no second generation).
        answer_style: ``"short"`` (reply prefilled with :data:`SHORT_PREFILL`, the answer is the first number) or
            ``"reasoning"`` (a worked solution ending in ``#### X``); default ``short`` for ``token_prob``,
            ``reasoning`` for the other modes (``rafs`` needs it).
        max_new_tokens: bound on the answer's length (default 128 in the reasoning style; in the short style one
            more than the longest gold answer has characters, see :data:`DEFAULT_MAX_NEW_TOKENS`);
            ``confidence_max_new_tokens`` on the confidence reply's.
        batch_size: prompts per ``generate`` call (default :data:`DEFAULT_BATCH_SIZE` of the style).
        instruction: appended to every problem; default :data:`ANSWER_INSTRUCTION` in the ``reasoning`` style,
            none in the ``short`` style.
        generator: replaces the model's generation (tests; other engines).
        system_prompt: a system message put before every problem; ``None``: none (the chat template's default
            system prompt, if it has one); ``""``: an empty one, which keeps the template from inserting its
            default (16 fewer tokens per item with SmolLM2: 28 instead of 44 on the shipped probe set; dropped
            again for a template that refuses system messages); ``"auto"`` (default): ``""`` in the ``short`` style, ``None``
            in the ``reasoning`` style.
        prefill: start the confidence reply with :data:`CONFIDENCE_PREFILL` (a chat message with role
            ``assistant`` at the end of the prompt) so that the model's next tokens are the number / the word.

    Never raises on model output: failures are counted in the result. Raises ``ValueError`` on a wrong
    configuration (unknown mode or style, a probe set without gold answers).
    """
    style = _probe_style(confidence, token_prob_reduce, answer_style)
    if batch_size is None:
        batch_size = DEFAULT_BATCH_SIZE[style]
    if instruction is None:
        instruction = ANSWER_INSTRUCTION if style == "reasoning" else ""
    items = normalise_probe_set(probe_set)
    if max_new_tokens is None:
        max_new_tokens = _default_max_new_tokens(style, items)
    t0 = time.perf_counter()
    gen = generator if generator is not None else HFGenerator(model, tokenizer, batch_size=batch_size)
    records = [ProbeRecord(problem=it["problem"], gold=it["answer"]) for it in items]
    failures: list[str] = []

    # Turn 1: the answers.
    if system_prompt == "auto":
        system_prompt = "" if style == "short" else None
    prompts = _answer_prompts(records, instruction, style, system_prompt)
    answers = _safe_generate(gen, prompts, max_new_tokens, confidence == "token_prob", batch_size, failures)
    spans = _grade(records, answers, style)

    live = [i for i in range(len(records)) if records[i].error is None]
    # Turn 2 (or no turn): the confidences.
    if confidence in ("verbalized", "keep_withdraw") and live:
        _asked_confidences(gen, prompts, 1 + (system_prompt is not None), records, live, confidence, prefill,
                           confidence_max_new_tokens, batch_size, failures)
    elif confidence == "token_prob":
        _token_prob_confidences(records, answers, live, style, spans, token_prob_reduce)
    elif confidence == "rafs":
        _rafs_confidences(records, live)
    return _probe_result(records, confidence, failures, time.perf_counter() - t0, style, max_new_tokens)


def _probe_style(confidence: str, token_prob_reduce: str, answer_style: str | None) -> str:
    """The answer style (``short`` for ``token_prob``, else ``reasoning``, unless named); raises ``ValueError`` on
    an unknown mode, reduction or style, or on ``rafs`` with short answers."""
    if confidence not in CONFIDENCE_MODES:
        raise ValueError(f"confidence={confidence!r} is not a confidence mode; use one of {CONFIDENCE_MODES}.")
    if token_prob_reduce not in ("mean", "min"):
        raise ValueError(f"token_prob_reduce={token_prob_reduce!r}: use 'mean' or 'min'.")
    style = answer_style if answer_style is not None else ("short" if confidence == "token_prob" else "reasoning")
    if style not in ANSWER_STYLES:
        raise ValueError(f"answer_style={answer_style!r} is not an answer style; use 'short' (a few tokens after "
                         f"{SHORT_PREFILL!r}) or 'reasoning' (a worked solution ending in '#### X').")
    if style == "short" and confidence == "rafs":
        raise ValueError("confidence='rafs' scores the answer's reasoning, which answer_style='short' does not "
                         "produce; use answer_style='reasoning' (or confidence='token_prob').")
    return style


def _default_max_new_tokens(style: str, items: list[dict[str, str]]) -> int:
    """128 in the reasoning style; in the short style one more than the longest gold answer has characters."""
    if style == "short":
        from rewards.checks.answers import gold_answer

        longest = max(len(gold_answer(it["answer"]) or "") for it in items)
        return min(longest + 1, DEFAULT_MAX_NEW_TOKENS["short"])
    return DEFAULT_MAX_NEW_TOKENS["reasoning"]


def _answer_prompts(records: list[ProbeRecord], instruction: str, style: str,
                    system_prompt: str | None) -> list[list[dict[str, str]]]:
    """Turn 1's chat prompts: the system message (unless ``None``), the problem, and in the short style the
    reply's prefill."""
    prompts = [_answer_prompt(r.problem, instruction) for r in records]
    if system_prompt is not None:
        prompts = [[{"role": "system", "content": system_prompt}] + p for p in prompts]
    if style == "short":
        prompts = [p + [{"role": "assistant", "content": SHORT_PREFILL}] for p in prompts]
    return prompts


def _grade(records: list[ProbeRecord], answers: list, style: str) -> dict[int, tuple[int, int]]:
    """Record each answer and whether it is correct (a failed generation or grading as the record's error); the
    span of each short answer found, by item."""
    from rewards.checks.answers import is_correct

    spans: dict[int, tuple[int, int]] = {}
    for k, (rec, g) in enumerate(zip(records, answers)):
        if isinstance(g, str):
            rec.error = g
            continue
        try:
            if style == "short":
                rec.response = SHORT_PREFILL + g.text
                found = short_answer(g.text)
                if found is not None:
                    spans[k] = found[1:]
                rec.correct = found is not None and bool(is_correct(f"#### {found[0]}", rec.gold))
            else:
                rec.response = g.text
                rec.correct = bool(is_correct(g.text, rec.gold))
        except Exception as exc:  # noqa: BLE001 - grading untrusted text must not stop the screen
            rec.error = f"grading failed: {type(exc).__name__}: {exc}"
    return spans


def _asked_confidences(gen, prompts: list[list[dict[str, str]]], n_head: int, records: list[ProbeRecord],
                       live: list[int], confidence: str, prefill: bool, max_new_tokens: int, batch_size: int,
                       failures: list[str]) -> None:
    """Turn 2: ask each live item for its confidence (a number, or keep/withdraw) after its answer, and parse the
    reply; ``n_head``: the turn-1 messages before the answer (system, user)."""
    question = VERBALIZED_QUESTION if confidence == "verbalized" else KEEP_WITHDRAW_QUESTION
    conv = [prompts[i][:n_head] + [{"role": "assistant", "content": records[i].response or ""},
                                   {"role": "user", "content": question}] for i in live]
    if prefill:
        conv = [c + [{"role": "assistant", "content": CONFIDENCE_PREFILL[confidence]}] for c in conv]
    replies = _safe_generate(gen, conv, max_new_tokens, False, batch_size, failures, ids=live)
    parse = parse_verbalized if confidence == "verbalized" else parse_keep_withdraw
    for i, g in zip(live, replies):
        rec = records[i]
        if isinstance(g, str):
            rec.error = g
            continue
        rec.confidence_raw = g.text
        value = parse(g.text)
        rec.confidence = None if value is None else float(value)


def _token_prob_confidences(records: list[ProbeRecord], answers: list, live: list[int], style: str,
                            spans: dict[int, tuple[int, int]], reduce: str) -> None:
    """Each live answer's token probability (over its short answer's span in the short style) as its confidence."""
    for i in live:
        rec, g = records[i], answers[i]
        if style == "short" and i not in spans:
            rec.confidence = None  # an empty reply: no answer, no probability
        else:
            rec.confidence = _answer_span_logprob(g, reduce, spans.get(i))
        rec.confidence_raw = None if rec.confidence is None else f"{rec.confidence:.6f}"


def _rafs_confidences(records: list[ProbeRecord], live: list[int]) -> None:
    """Each live answer's RAFS score as its confidence (its status as the raw value)."""
    from rewards.scoring.score import score_trace

    for i in live:
        rec = records[i]
        try:
            result = score_trace(rec.problem, rec.response)
            rec.confidence = result.score
            rec.confidence_raw = result.status
        except Exception as exc:  # noqa: BLE001
            rec.error = f"RAFS failed: {type(exc).__name__}: {exc}"


def _probe_result(records: list[ProbeRecord], confidence: str, failures: list[str], elapsed: float, style: str,
                  max_new_tokens: int) -> ProbeResult:
    """The result: the (correct, confidence) pairs of the items that have both; the unparseable and failed ones
    counted."""
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
                       elapsed_s=elapsed, answer_style=style, max_new_tokens=max_new_tokens)


def _safe_generate(gen: Callable[..., list[Generation]], prompts: list[Any], max_new_tokens: int,
                   want_scores: bool, batch_size: int, failures: list[str],
                   ids: Sequence[int] | None = None) -> list[Generation | str]:
    """Generate in chunks of prompts of similar length (sorted by length, so that a batch pads little; the replies
    come back in the prompts' order); a chunk that raises becomes one error string per prompt (and one line in
    failures, naming the probe items: ``ids``, by default the prompts' positions)."""
    ids = list(range(len(prompts))) if ids is None else list(ids)
    order = sorted(range(len(prompts)), key=lambda i: len(str(prompts[i])))
    replies: list[Generation | str] = [""] * len(prompts)
    batch_size = max(1, batch_size)
    for start in range(0, len(order), batch_size):
        picked = order[start:start + batch_size]
        for i, g in zip(picked, _generate_chunk(gen, [prompts[i] for i in picked], [ids[i] for i in picked],
                                                max_new_tokens, want_scores, failures)):
            replies[i] = g
    return replies


def _generate_chunk(gen: Callable[..., list[Generation]], chunk: list[Any], chunk_ids: list[int],
                    max_new_tokens: int, want_scores: bool, failures: list[str]) -> list[Generation | str]:
    try:
        got = list(gen(chunk, max_new_tokens, want_scores))
        if len(got) != len(chunk):
            raise RuntimeError(f"generator returned {len(got)} replies for {len(chunk)} prompts")
        return [g if isinstance(g, Generation) else Generation(str(g)) for g in got]
    except Exception as exc:  # noqa: BLE001 - a probe failure is reported, not raised
        reason = f"generation failed: {type(exc).__name__}: {exc}"
        shown = sorted(chunk_ids)
        items = ", ".join(map(str, shown[:8])) + (f", ... ({len(shown)} items)" if len(shown) > 8 else "")
        log.warning("probe items %s: %s", items, reason)
        failures.append(f"items {items}: {reason}")
        return [reason] * len(chunk)
