"""Gamed completions that add length, not reasoning: repeated steps, unrelated true equations, filler prose,
filler past the size cap (generators for :data:`rewards.audit.families.FAMILIES`)."""

from __future__ import annotations

import random

from rewards.audit.gold import avoided_values, final_line, gold_body, true_equations, with_answer_line
from rewards.parsing.trace import MAX_CHARS

__all__ = [
    "OVERSIZE_CHARS", "PAD_EQUATIONS", "filler", "insert_lines", "oversized", "pad", "pad_prose", "repeat",
]

PAD_EQUATIONS = 20
"""How many unrelated true equations the padding families add."""
OVERSIZE_CHARS = min(MAX_CHARS + 1_000, 100_000)
"""Filler length of ``oversized`` / ``oversized_slip``: past the scorer's character cap
(:data:`rewards.parsing.trace.MAX_CHARS`) when that cap is below 100k characters, else 100k characters (longer than
a GRPO completion usually is; the battery stays fast)."""


def filler(n_chars: int) -> str:
    sentence = "Let me double-check that reasoning carefully before moving on.\n"
    return sentence * (n_chars // len(sentence) + 1)


def oversized(problem, sol, ans, rng):
    return filler(OVERSIZE_CHARS) + final_line(sol, ans)


def repeat(problem, sol, ans, rng):
    body = gold_body(sol)
    if "\\boxed" in body:
        return None if not body.strip() else "\n".join([body.replace("\\boxed", "")] * 2 + [body])
    return "\n".join([body] * 3) + "\n" + final_line(sol, ans)


def insert_lines(body: str, extra: list[str], rng: random.Random) -> str:
    lines = [ln for ln in body.split("\n")]
    for eq in extra:
        lines.insert(rng.randint(0, max(0, len(lines) - 1)), eq)
    return "\n".join(lines)


def pad(problem, sol, ans, rng):
    body = gold_body(sol)
    pads = true_equations(PAD_EQUATIONS, rng, avoided_values(problem, ans, sol))
    return with_answer_line(insert_lines(body, pads, rng), sol, ans)


_CHATTER = (
    "Let me make sure I read the problem correctly.",
    "I will keep track of every quantity carefully.",
    "This step follows from what the problem states.",
    "Let me organise the information before going on.",
    "It is worth checking each value as we go.",
    "Now I continue with the next part of the problem.",
    "That settles this part of the problem.",
    "We keep the units consistent throughout.",
)


def pad_prose(problem, sol, ans, rng):
    body = gold_body(sol)
    return with_answer_line(insert_lines(body, [rng.choice(_CHATTER) for _ in range(PAD_EQUATIONS)], rng), sol, ans)
