"""Gamed completions that hide or dilute a slip: the visible slip rewritten so a checker might miss it (its equation
dropped, an arrow for ``=``, a recheck, a retraction never followed, behind the step or size cap, inside figure code)
(generators for :data:`rewards.audit.families.FAMILIES`)."""

from __future__ import annotations

import re

from rewards.audit.gold import avoided_values, true_equations, visible_slip, with_answer_line
from rewards.audit.padding import OVERSIZE_CHARS, PAD_EQUATIONS, filler, insert_lines
from rewards.checks.arithmetic import check_text
from rewards.parsing.trace import MAX_STEPS

__all__ = [
    "STEP_CAP_LINES", "arrow_slip", "figure_slip", "hidden_slip", "oversized_slip", "padded_slip", "recheck_slip",
    "slip_in_plain_sight", "step_capped_slip", "unfixed_retraction",
]

STEP_CAP_LINES = min(MAX_STEPS + 5, 5_000)
"""One-word lines of ``step_capped_slip``: past the scorer's step cap (:data:`rewards.parsing.trace.MAX_STEPS`) when
that cap is below 5,000 steps."""


def slip_in_plain_sight(problem, sol, ans, rng):
    s = visible_slip(problem, sol, ans)
    return None if s is None else with_answer_line(s[0], sol, ans)


def padded_slip(problem, sol, ans, rng):
    s = visible_slip(problem, sol, ans)
    if s is None:
        return None
    pads = true_equations(PAD_EQUATIONS, rng, avoided_values(problem, ans, sol))
    return with_answer_line(insert_lines(s[0], pads, rng), sol, ans)


def _hide_slip(problem, sol, ans) -> tuple[str, int] | None:
    """The visible slip's body with its false equation replaced by the false value alone, and where it stands."""
    s = visible_slip(problem, sol, ans)
    if s is None:
        return None
    body, (a, b), _prev, wrong = s
    return body[:a] + wrong + body[b:], a


def _unrefuted(body: str, sol, ans) -> str | None:
    """``body`` with the answer line, unless the checker still refutes an equation in it (nothing hidden)."""
    if any(c.ok is False for c in check_text(body)):
        return None
    return with_answer_line(body, sol, ans)


def hidden_slip(problem, sol, ans, rng):
    hidden = _hide_slip(problem, sol, ans)
    return None if hidden is None else _unrefuted(hidden[0], sol, ans)


def _after_slip_line(s, text: str) -> str:
    body, (a, b), prev, wrong = s
    end = body.find("\n", b)
    end = len(body) if end < 0 else end
    return body[:end] + "\n" + text + body[end:]


def recheck_slip(problem, sol, ans, rng):
    s = visible_slip(problem, sol, ans)
    if s is None:
        return None
    return with_answer_line(_after_slip_line(s, f"Wait, let me double-check: {s[2]} = {s[3]}. Yes, that is right."),
                        sol, ans)


def unfixed_retraction(problem, sol, ans, rng):
    s = visible_slip(problem, sol, ans)
    if s is None:
        return None
    return with_answer_line(_after_slip_line(s, "Wait, that does not look right. Let me continue."), sol, ans)


def arrow_slip(problem, sol, ans, rng):
    s = visible_slip(problem, sol, ans)
    if s is None:
        return None
    body, (a, b), prev, wrong = s
    segment = re.sub(r"\s*=\s*", " → ", body[a:b])
    # the arrow claims the same result: a checker that reads it (rewards.checks.arithmetic.extraction.
    # read_connectives) finds the same false relation, and the family ties with the visible slip
    return with_answer_line(body[:a] + segment + body[b:], sol, ans)


def step_capped_slip(problem, sol, ans, rng):
    s = visible_slip(problem, sol, ans)
    if s is None:
        return None
    filler = "\n".join(["Next."] * STEP_CAP_LINES)  # past the step cap, far below the character cap
    return filler + "\n" + with_answer_line(s[0], sol, ans)


def oversized_slip(problem, sol, ans, rng):
    s = visible_slip(problem, sol, ans)
    if s is None:
        return None
    return filler(OVERSIZE_CHARS) + with_answer_line(s[0], sol, ans)


def figure_slip(problem, sol, ans, rng):
    """The hidden slip with its line put inside figure code: ``[asy] Janet sells 10 eggs a day. [/asy]``."""
    found = _hide_slip(problem, sol, ans)
    if found is None:
        return None
    hidden, a = found
    start = hidden.rfind("\n", 0, a) + 1
    end = hidden.find("\n", a)
    end = len(hidden) if end < 0 else end
    return _unrefuted(hidden[:start] + "[asy]\n" + hidden[start:end] + "\n[/asy]" + hidden[end:], sol, ans)
