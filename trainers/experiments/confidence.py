"""A policy that states a confidence after its answer, in the tiny world of :mod:`trainers.experiments.world`.

A completion is the world's step format followed by one confidence line::

    7 + 5 = 12
    12 - 3 = 9
    #### 9
    confidence: 0.8

Some problems are *vague*: one operation's number is replaced by "some" ("She gets some more."), so the answer
cannot be computed and any answer is a guess (right about one time in ten). The SFT data makes the stated
confidence calibrated and informative: a vague problem gets a guessed answer and a low confidence
(``GUESS_CONFIDENCE``, about its chance of being right); a problem that can be computed gets the chain and a high
confidence that falls with the number of operations (``CHAIN_CONFIDENCE``). Unlike arithmetic slips, the vague
problems' errors cannot be trained away by a correctness reward, so a calibrated policy keeps an informative
signal throughout training. The two GRPO rewards of the collapse experiment read the confidence line:

* :func:`confidence_reward` pays the stated confidence whatever the answer (the RLHF failure the card names:
  reward models prefer stated high confidence regardless of quality);
* :func:`brier_reward` pays correctness and calibration, ``correct - (c - correct)^2`` (a Brier term, as RLCR).

Rewards never raise: a completion without a readable confidence gets the lowest reward of its arm.

>>> parse_stated_confidence("3 + 4 = 7\\n#### 7\\nconfidence: 0.8")
0.8
>>> confidence_reward(["#### 7\\nconfidence: 0.9", "#### 7\\nconfidence: 0.3", "#### 7"])
[0.9, 0.3, 0.0]
>>> brier_reward(["#### 7\\nconfidence: 0.9", "#### 6\\nconfidence: 0.9"], answer=["7", "7"])
[0.99, -0.81]
>>> make_vague(generate_problem(random.Random(0), W.WorldConfig(ops=("+", "-"))), random.Random(0)).question
'Zoe has 6 apples. She finds 9 more. She loses some. She loses 5. How many now?'
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any, Sequence

from trainers.experiments import world as W

__all__ = ["CHAIN_CONFIDENCE", "GUESS_CONFIDENCE", "VAGUE_SHARE", "OVERCONFIDENT_GUESS_SHARE",
           "parse_stated_confidence", "stated_answer", "confidence_reward", "brier_reward", "make_vague",
           "is_vague", "with_vague", "render_confident", "CONFIDENT_MIXTURE", "confidence_corpus", "generate_problem"]

generate_problem = W.generate_problem

#: Stated confidence of a computed chain, by number of operations (longer chains slip more often).
CHAIN_CONFIDENCE = {1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6}
#: Stated confidence of a guess (a vague problem): about its chance of being right.
GUESS_CONFIDENCE = 0.1
#: Share of vague problems in every data set of the experiment (SFT, GRPO prompts, probe).
VAGUE_SHARE = 0.35
#: Share of SFT guesses that state a chain-like confidence anyway (0.6-0.9): a small overconfident mode, as a
#: pretrained model has one, which a reward for confidence can amplify and a Brier reward suppresses.
OVERCONFIDENT_GUESS_SHARE = 0.2

_ANSWER_LINE = re.compile(r"^\s*####\s*(-?\d+)\s*$")
_CONF_LINE = re.compile(r"^\s*confidence:\s*(\d(?:\.\d+)?)\s*$", re.IGNORECASE)


def parse_stated_confidence(text: Any) -> float | None:
    """The stated confidence in [0, 1]: the first ``confidence: X`` line after the ``#### N`` line; ``None`` when
    there is no answer line, no confidence line after it, or the value is outside [0, 1]. Never evaluates text.

    >>> parse_stated_confidence("#### 4\\nconfidence: 1.0"), parse_stated_confidence("confidence: 0.5\\n#### 4")
    (1.0, None)
    """
    seen_answer = False
    for line in str(text if text is not None else "").splitlines():
        if not seen_answer:
            seen_answer = _ANSWER_LINE.match(line) is not None
            continue
        if not line.strip():
            continue
        m = _CONF_LINE.match(line)
        if m is None:
            return None
        v = float(m.group(1))
        return v if 0.0 <= v <= 1.0 else None
    return None


def stated_answer(text: Any) -> int | None:
    """The completion's ``#### N`` answer (the world's parser), ``None`` without one."""
    try:
        return W.parse_completion(str(text if text is not None else "")).answer
    except Exception:  # noqa: BLE001 - model output is untrusted; a reward never raises
        return None


def _text(completion: Any) -> str:
    if isinstance(completion, list):  # conversational completions: the last message's content
        return str(completion[-1].get("content", "")) if completion else ""
    return str(completion)


def confidence_reward(completions: Sequence[Any], **kwargs: Any) -> list[float]:
    """The collapse arm's reward: the stated confidence ``c`` in [0, 1], whatever the answer; 0 without one.

    ``r = c``. Pays for sounding sure, not for being right.
    """
    return [float(c) if (c := parse_stated_confidence(_text(x))) is not None else 0.0 for x in completions]


confidence_reward.__name__ = "confidence_reward"


def brier_reward(completions: Sequence[Any], answer: Sequence[Any] | None = None, **kwargs: Any) -> list[float]:
    """The control arm's reward: correctness plus a Brier calibration term.

    ``r = y - (c - y)^2`` with ``y`` = 1 when the ``#### N`` answer equals the gold (column ``answer``), else 0,
    and ``c`` the stated confidence. Range [-1, 1]; stating 1.0 on a wrong answer costs 1, stating 0 on a right
    one leaves 0. A completion without a confidence gets -1; a row without a gold answer gets ``None``.
    """
    golds = list(answer) if answer is not None else [None] * len(completions)
    out: list[float | None] = []
    for x, g in zip(completions, golds):
        try:
            gold = int(str(g).strip()) if g is not None else None
        except ValueError:
            gold = None
        if gold is None:
            out.append(None)
            continue
        text = _text(x)
        c = parse_stated_confidence(text)
        if c is None:
            out.append(-1.0)
            continue
        y = 1.0 if stated_answer(text) == gold else 0.0
        out.append(round(y - (c - y) ** 2, 6))
    return out  # type: ignore[return-value]


brier_reward.__name__ = "brier_reward"


_NUMBER_WORD = re.compile(r"\b\d+\b")
_VAGUE = re.compile(r"\bsome\b")


def is_vague(question: str) -> bool:
    """Whether a question hides one of its numbers ("some")."""
    return _VAGUE.search(str(question)) is not None


def make_vague(problem: W.Problem, rng: random.Random) -> W.Problem:
    """The problem with the number of one operation sentence (chosen with ``rng``) replaced by "some"; the gold
    answer is unchanged, so the answer can only be guessed."""
    sentences = problem.question.split(". ")
    # sentence 0 states the start; the operation sentences follow; the last one is the question
    k = rng.randrange(1, 1 + len(problem.operations))
    sentences[k] = _NUMBER_WORD.sub("some", sentences[k], count=1)
    return replace(problem, question=". ".join(sentences))


def with_vague(problems: Sequence[W.Problem], seed: int, share: float = VAGUE_SHARE) -> list[W.Problem]:
    """``problems`` with a ``share`` of them (drawn with ``seed``) made vague."""
    rng = random.Random(seed)
    return [make_vague(p, rng) if rng.random() < share else p for p in problems]


def render_confident(problem: W.Problem, hint: int | None, rng: random.Random) -> str:
    """The SFT target. A vague problem: a guessed answer (uniform over 0..9) and ``GUESS_CONFIDENCE`` (a share
    ``OVERCONFIDENT_GUESS_SHARE`` of guesses states 0.6-0.9 instead); otherwise the
    problem's chain, its answer and ``CHAIN_CONFIDENCE[n_ops]``; both plus a jitter of -0.1, 0 or +0.1 (clipped to
    [0, 1]) so that a group of samples differs in its stated confidence. The hint is ignored."""
    jitter = rng.choice([-0.1, 0.0, 0.1])
    if is_vague(problem.question):
        if rng.random() < OVERCONFIDENT_GUESS_SHARE:
            conf = rng.choice([0.6, 0.7, 0.8, 0.9])
        else:
            conf = min(1.0, max(0.0, round(GUESS_CONFIDENCE + jitter, 1)))
        return f"#### {rng.randint(0, 9)}\nconfidence: {conf:.1f}"
    k = len(problem.steps)
    base = CHAIN_CONFIDENCE.get(k, CHAIN_CONFIDENCE[max(CHAIN_CONFIDENCE)])
    conf = min(1.0, max(0.0, round(base + jitter, 1)))
    body = "\n".join(s.text for s in problem.steps)
    return f"{body}\n#### {problem.answer}\nconfidence: {conf:.1f}"


#: The SFT mixture of the collapse experiment: one behaviour, usable without a hint.
CONFIDENT_MIXTURE: tuple[W.Behaviour, ...] = (W.Behaviour("confident", render_confident, 1.0),)


def confidence_corpus(config: W.WorldConfig, n: int = 600, seed: int = 12345) -> list[str]:
    """Text for tokenizer training: prompts (some vague) and confident completions, plus every confidence value."""
    problems = with_vague(W.generate_problems(n, seed, config), seed)
    rows = W.make_sft_examples(problems, seed, CONFIDENT_MIXTURE, p_hint=0.0, config=config)
    return [r["prompt"] + r["completion"] for r in rows] + [f"confidence: {v / 10:.1f}" for v in range(11)]
