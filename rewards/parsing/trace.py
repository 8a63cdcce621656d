"""Completion -> :class:`Trace`: the problem, the atomic reasoning steps and the stated final answer.

A completion is untrusted model output in any of the shapes TRL hands a reward function:

* plain text (``"Janet sells 16 - 3 - 4 = 9 eggs...\\n#### 18"``);
* a list of chat messages (``[{"role": "assistant", "content": "..."}]``), whose reasoning may sit in
  ``content`` inside ``<think>...</think>`` or in a separate ``reasoning_content`` / ``thinking`` field;
* pre-split steps (ProcessBench's ``steps`` list).

The final answer is taken, in order of preference, from the last ``\\boxed{...}`` (or ``\\fbox``), a GSM8K
``#### X`` line, an explicit "the (final) answer is X" / "Answer: X" phrase, and finally the last number of the
last step. Everything is bounded: text beyond :data:`MAX_CHARS` or more than :data:`MAX_STEPS` steps make the
trace *oversized* (the scorer abstains), and control characters are dropped.

Example
-------
>>> t = parse_trace("Ann has 3 apples and buys 4.", "She has 3 + 4 = 7 apples.\\n#### 7")
>>> t.steps
('She has 3 + 4 = 7 apples.',)
>>> t.answer, t.answer_source
('7', 'gsm8k')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

__all__ = ["Trace", "parse_trace", "completion_text", "extract_final_answer", "split_steps",
           "MAX_CHARS", "MAX_STEPS", "MAX_STEP_CHARS"]

MAX_CHARS = 32_000
"""Completions longer than this (after joining reasoning and content) are not scored: the scorer abstains."""
MAX_STEPS = 200
"""More steps than this and the scorer abstains (no GSM8K/MATH solution comes near it)."""
MAX_STEP_CHARS = 2_000
"""A single step longer than this is split at sentence ends; each piece is capped at this length."""
MAX_ANSWER_CHARS = 200
"""A final answer longer than this is treated as no answer."""

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_THINK_TAGS = re.compile(r"</?think>", re.I)
_GSM8K_ANSWER = re.compile(r"^\s*####\s*(.+?)\s*$", re.M)
_ANSWER_PHRASE = re.compile(
    r"(?:final answer|the answer|answer)\s*(?:is|:|=)\s*[:\s]*"
    r"(\$?\s*-?[\d,]*\.?\d+(?:\s*/\s*\d+)?%?|\$[^$\n]{1,80}\$|\\\([^\n]{1,80}?\\\))",
    re.I,
)
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")
_SENTENCE_END = re.compile(r"(?<=[^\d\s][.!?])\s+(?=[A-Z\\$(])")
_BLANKS = re.compile(r"\n\s*\n+")


@dataclass(frozen=True)
class Trace:
    """A parsed reasoning trace.

    Attributes:
        problem: the problem statement ``x``.
        steps: the atomic steps ``r_1..r_T`` (the final ``#### X`` line is not a step).
        answer: the stated final answer ``A`` as written (``None`` when none could be found).
        answer_source: where ``answer`` came from: ``boxed``, ``gsm8k``, ``phrase``, ``last_number`` or ``None``.
        issues: why the trace cannot be scored, if it cannot (``oversized``, ``empty``...). Empty when fine.
    """

    problem: str
    steps: tuple[str, ...]
    answer: str | None
    answer_source: str | None = None
    issues: tuple[str, ...] = field(default=())

    @property
    def text(self) -> str:
        return "\n".join(self.steps)


def _clean(text: str) -> str:
    return _CONTROL.sub("", text)


def _message_text(message: Mapping[str, Any]) -> tuple[str, str]:
    """(reasoning, content) of one chat message; reasoning from reasoning_content/thinking fields."""
    content = message.get("content")
    if isinstance(content, list):  # multimodal style: [{"type": "text", "text": ...}]
        content = "\n".join(str(c.get("text", "")) for c in content if isinstance(c, Mapping))
    reasoning = message.get("reasoning_content") or message.get("thinking") or message.get("reasoning") or ""
    return str(reasoning or ""), str(content or "")


def completion_text(completion: Any) -> str:
    """Flatten a completion (text, one message, or a message list) into reasoning text.

    ``<think>`` tags are removed but their content is kept: the reasoning inside them is the trace.
    Only assistant messages are read from a message list (a user turn is not reasoning).

    >>> completion_text([{"role": "assistant", "content": "<think>2+2=4</think>The answer is 4."}])
    '2+2=4\\nThe answer is 4.'
    """
    if completion is None:
        return ""
    if isinstance(completion, bytes):
        completion = completion.decode("utf-8", errors="replace")
    if isinstance(completion, str):
        parts = [completion]
    elif isinstance(completion, Mapping):
        parts = [p for p in _message_text(completion) if p]
    elif isinstance(completion, Sequence):
        parts = []
        for message in completion:
            if isinstance(message, Mapping):
                if message.get("role", "assistant") != "assistant":
                    continue
                parts.extend(p for p in _message_text(message) if p)
            elif isinstance(message, str):
                parts.append(message)
    else:
        parts = [str(completion)]
    text = "\n".join(parts)
    if "<think" in text.lower() or "</think" in text.lower():
        inner = "\n".join(m.strip() for m in _THINK.findall(text))
        outer = _THINK.sub("", text).strip()
        outer = _THINK_TAGS.sub("", outer).strip()
        text = "\n".join(p for p in (inner.strip(), outer) if p)
    return text


def _last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` / ``\\fbox{...}`` with balanced braces, or ``\\boxed 5``."""
    idx = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if idx < 0:
        return None
    i = text.find("{", idx)
    head = text[idx:].split(None, 1)
    if i < 0 or (len(head) > 1 and text[idx:i].strip() not in ("\\boxed", "\\fbox")):
        # \boxed 5 form
        m = re.match(r"\\(?:boxed|fbox)\s+([^\s$]+)", text[idx:])
        return m.group(1) if m else None
    depth = 0
    for j in range(i, min(len(text), i + 4 * MAX_ANSWER_CHARS)):
        ch = text[j]
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1 : j]
    return None  # unbalanced


def extract_final_answer(text: str) -> tuple[str | None, str | None]:
    """The stated final answer and where it came from.

    >>> extract_final_answer("so 9 * 2 = 18.\\n#### 18")
    ('18', 'gsm8k')
    >>> extract_final_answer("Thus the total is $\\\\boxed{\\\\frac{3}{4}}$.")
    ('\\\\frac{3}{4}', 'boxed')
    >>> extract_final_answer("The answer is 42.")
    ('42', 'phrase')
    >>> extract_final_answer("no numbers here")
    (None, None)
    """
    tail = text[-16 * MAX_ANSWER_CHARS:]
    boxed = _last_boxed(tail)
    if boxed is None and ("\\boxed" in tail or "\\fbox" in tail):
        return None, None  # a box was opened but never closed: no trustworthy answer
    if boxed is not None and boxed.strip():
        ans, src = boxed.strip(), "boxed"
    else:
        gsm = _GSM8K_ANSWER.findall(tail)
        if gsm:
            ans, src = gsm[-1], "gsm8k"
        else:
            phrases = _ANSWER_PHRASE.findall(tail)
            if phrases:
                ans, src = phrases[-1].strip().rstrip("."), "phrase"
                if ans.startswith("\\(") and ans.endswith("\\)"):
                    ans = ans[2:-2].strip()
                elif len(ans) > 1 and ans.startswith("$") and ans.endswith("$"):
                    ans = ans[1:-1].strip()
            else:
                last_line = tail.strip().rsplit("\n", 1)[-1]
                numbers = _NUMBER.findall(last_line)
                if not numbers:
                    return None, None
                ans, src = numbers[-1], "last_number"
    ans = ans.strip()
    if not ans or len(ans) > MAX_ANSWER_CHARS:
        return None, None
    return ans, src


_DISPLAY_OPEN = re.compile(r"\\begin\{|(?<!\\)\\\[|\$\$")
_DISPLAY_TOKEN = re.compile(r"\\(?:begin|end)\{|(?<!\\)\\[\[\]]|\$\$")


def _display_depth(line: str, depth: int) -> int:
    """Open math displays after ``line``, starting from ``depth`` (``\\begin``/``\\end``, ``\\[``/``\\]``,
    ``$$`` pairs)."""
    for tok in _DISPLAY_TOKEN.findall(line):
        if tok in ("\\begin{", "\\["):
            depth += 1
        elif tok == "$$":
            depth += -1 if depth > 0 else 1
        else:
            depth -= 1
    return max(depth, 0)


def _join_displays(lines: list[str]) -> list[str]:
    """Keep a multi-line display (``align``, ``\\[ … \\]``, ``$$ … $$``) in one chunk: its lines are one
    derivation (``&= …`` continues the line before) and only read right as math together."""
    out: list[str] = []
    depth = 0
    for line in lines:
        if depth > 0 and out and len(out[-1]) + len(line) < MAX_STEP_CHARS:
            out[-1] = out[-1] + "\n" + line
        else:
            out.append(line)
            depth = 0
        if depth or _DISPLAY_OPEN.search(line):
            depth = _display_depth(line, depth)
    return out


def split_steps(text: str) -> list[str]:
    """Split reasoning text into atomic steps: paragraphs/lines, and long lines at sentence ends.

    GSM8K's solutions put one step per line; model output often uses blank-line paragraphs, bullet lines or
    ``Step k:`` headers. A GSM8K ``#### X`` line is the answer, not a step.

    >>> split_steps("First 2 + 3 = 5.\\nThen 5 * 2 = 10.\\n#### 10")
    ['First 2 + 3 = 5.', 'Then 5 * 2 = 10.']

    A display spread over lines stays one step:

    >>> len(split_steps("So \\\\begin{align*}\\nx &= 2 + 3\\\\\\\\\\n&= 5\\n\\\\end{align*}\\nDone."))
    2
    """
    text = _GSM8K_ANSWER.sub("", text)
    chunks = _join_displays([c.strip() for c in text.split("\n")]) if "\n" in text else [text.strip()]
    steps: list[str] = []
    for chunk in chunks:
        if not chunk:
            continue
        if len(chunk) > MAX_STEP_CHARS or (len(chunk) > 400 and "\n" not in text):
            for piece in _SENTENCE_END.split(chunk):
                piece = piece.strip()
                while len(piece) > MAX_STEP_CHARS:
                    steps.append(piece[:MAX_STEP_CHARS])
                    piece = piece[MAX_STEP_CHARS:]
                if piece:
                    steps.append(piece)
        else:
            steps.append(chunk)
        if len(steps) > MAX_STEPS:
            break
    return steps


def parse_trace(problem: Any, completion: Any = None, *, steps: Sequence[str] | None = None) -> Trace:
    """Parse a completion (or pre-split ``steps``) into a :class:`Trace`. Never raises.

    Args:
        problem: the problem text (a prompt string or a message list; the user turns are read).
        completion: model output: text, a message dict or a message list. Ignored when ``steps`` is given.
        steps: pre-split steps, e.g. ProcessBench's ``steps``.
    """
    problem_text = _clean(_problem_text(problem))[:MAX_CHARS]
    issues: list[str] = []
    if steps is not None:
        if isinstance(steps, str) or not isinstance(steps, Sequence):
            return Trace(problem_text, (), None, None, (f"steps must be a list of strings, got {type(steps).__name__}",))
        raw_steps = [_clean(str(s)) for s in steps[: MAX_STEPS + 1]]
        total = sum(len(s) for s in raw_steps)
        if len(steps) > MAX_STEPS:
            issues.append(f"oversized: {len(steps)} steps > {MAX_STEPS}")
        if total > MAX_CHARS:
            issues.append(f"oversized: {total} characters > {MAX_CHARS}")
        step_list = [s.strip() for s in raw_steps if s.strip()]
        full = "\n".join(step_list)
        # ProcessBench's last step carries the answer; a "#### X" line inside a step is the answer too.
        answer, source = extract_final_answer(full[-MAX_CHARS:]) if not issues else (None, None)
        step_list = [_GSM8K_ANSWER.sub("", s).strip() or s for s in step_list]
    else:
        try:
            text = _clean(completion_text(completion))
        except Exception as exc:  # noqa: BLE001 - untrusted structure; never raise
            return Trace(problem_text, (), None, None, (f"unreadable completion: {type(exc).__name__}",))
        if len(text) > MAX_CHARS:
            issues.append(f"oversized: {len(text)} characters > {MAX_CHARS}")
            step_list, answer, source = [], None, None
        else:
            step_list = split_steps(text)
            if len(step_list) > MAX_STEPS:
                issues.append(f"oversized: more than {MAX_STEPS} steps")
                step_list = step_list[:MAX_STEPS]
            answer, source = extract_final_answer(text)
    if not step_list and not issues:
        issues.append("empty: no reasoning text")
    return Trace(problem_text, tuple(step_list), answer, source, tuple(issues))


def _problem_text(problem: Any) -> str:
    if problem is None:
        return ""
    if isinstance(problem, str):
        return problem
    if isinstance(problem, Mapping):
        return str(problem.get("content", ""))
    if isinstance(problem, Sequence):
        users = [m for m in problem if isinstance(m, Mapping) and m.get("role", "user") == "user"]
        chosen = users[-1:] if users else [m for m in problem if isinstance(m, Mapping)]
        return "\n".join(_message_text(m)[1] for m in chosen)
    return str(problem)
