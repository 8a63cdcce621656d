"""Completion -> :class:`Trace`: the problem, the atomic reasoning steps and the stated final answer.

A completion is untrusted model output in any of the shapes TRL hands a reward function:

* plain text (``"Janet sells 16 - 3 - 4 = 9 eggs...\\n#### 18"``);
* a list of chat messages (``[{"role": "assistant", "content": "..."}]``), whose reasoning may sit in
  ``content`` inside ``<think>...</think>`` or in a separate ``reasoning_content`` / ``thinking`` field;
* pre-split steps (ProcessBench's ``steps`` list).

The final answer is taken, in order of preference, from the last ``\\boxed{...}`` (or ``\\fbox``), a GSM8K
``#### X`` line, an explicit "the (final) answer is X" / "Answer: X" phrase, and finally the last number of the
last step. Control characters are dropped.

Size: traces up to :data:`SUPPORTED_CHARS` (256,000) characters and :data:`MAX_STEPS` (4,096) steps are
parsed and scored — a 16k-token reasoning trace is about 60,000 characters. :data:`MAX_CHARS` (1,000,000) is a
much larger hard ceiling on characters that exists only as a memory guard. Beyond either ceiling the trace is
*oversized* (an issue, not steps: a trace too long to check is never a free pass; what the reward does with it is
the scorer's integrity rule). Parsing is linear in the length (regex passes only).

Steps: GSM8K/MATH-style text keeps one step per line (:func:`split_steps`); long R1-style prose — a completion
with a ``<think>`` block or a ``reasoning_content``/``thinking`` field, a text longer than
:data:`~rewards.parsing.segmentation.PROSE_MIN_CHARS`, or one with a reflection cue in mid-line — is split into
sentence-level steps (:mod:`rewards.parsing.segmentation`). The thinking comes first and the final summary (the
text after ``</think>``, or ``content`` beside ``reasoning_content``) after it: ``Trace.summary_start``.

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
from collections.abc import Iterator, Mapping, Sequence  # isinstance on these is several times faster than on typing's
from dataclasses import dataclass, field
from itertools import islice
from re import Match
from typing import Any

from rewards.parsing.displays import display_rows, join_displays
from rewards.parsing.folding import ascii_lowered
from rewards.parsing.segmentation import is_prose, prose_steps

__all__ = ["Trace", "parse_trace", "completion_text", "completion_parts", "extract_final_answer", "other_stated_answers",
           "split_steps", "statements", "thinking_boxes",
           "MAX_CHARS", "MAX_STEPS", "MAX_STEP_CHARS", "SUPPORTED_CHARS"]

SUPPORTED_CHARS = 256_000
"""Completions up to this many characters (after joining reasoning and content) are parsed and scored: the
documented range (docs/long_traces.md gives the measured time per trace)."""
MAX_CHARS = 1_000_000
"""Hard ceiling on characters, a memory guard only (about 4x :data:`SUPPORTED_CHARS`): a longer completion is
*oversized* and not split into steps."""
MAX_STEPS = 4_096
"""Ceiling on steps: traces of up to this many steps (so at least 4,000) are scored; more and the trace is
*oversized*. Prose-mode steps average 95–100 characters on the long-trace battery (docs/long_traces.md), so a
256,000-character trace is 2,600–2,700 steps and the step ceiling binds at about 400,000 characters of such prose.
(4,096 and not more: ``tests/rewards/scoring/test_score.py`` requires a 5,000-step input to abstain.)"""
MAX_STEP_CHARS = 2_000
"""A single step longer than this is split at sentence ends; each piece is capped at this length."""
MAX_ANSWER_CHARS = 200
"""A final answer longer than this is treated as no answer."""

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_THINK = re.compile(r"<think>(.*?)(?:</think>|$)", re.S | re.I)
_THINK_TAGS = re.compile(r"</?think>", re.I)
_GSM8K_ANSWER = re.compile(r"^\s*####\s*(.+?)\s*$", re.M)
_ANSWER_PHRASE = re.compile(
    r"(?:final answer|the answer|answer)\s*+(?:is|:|=)\s*+[:\s]*+"  # possessive: a blank run is not re-split (cubic)
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
        summary_start: index of the first step of the final summary when the completion has a separate thinking
            part (``<think>…</think>``, ``reasoning_content``, ``thinking``): ``steps[:summary_start]`` are the
            thinking, ``steps[summary_start:]`` the summary (empty when ``summary_start == len(steps)``).
            ``None`` when there is no separate thinking part.
        segmentation: ``"lines"`` (one step per line: GSM8K/MATH, pre-split steps) or ``"prose"`` (sentence-level
            steps of long reasoning, :mod:`rewards.parsing.segmentation`).
        other_answers: the other final answers the completion states (:func:`other_stated_answers`: boxes,
            ``####`` lines and "the answer is N" written differently from ``answer``, outside the thinking part and
            in its closing line; and every box of the thinking the thinking does not settle, :func:`thinking_boxes`),
            each with the text between it and the final answer (for a box of the thinking: the thinking after it),
            where a correction would say why it was replaced.
    """

    problem: str
    steps: tuple[str, ...]
    answer: str | None
    answer_source: str | None = None
    issues: tuple[str, ...] = field(default=())
    summary_start: int | None = None
    segmentation: str = "lines"
    other_answers: tuple[tuple[str, str], ...] = ()

    @property
    def text(self) -> str:
        return "\n".join(self.steps)

    @property
    def thinking_steps(self) -> range:
        """Indices of the steps inside the thinking (all steps when there is no separate thinking part)."""
        return range(len(self.steps) if self.summary_start is None else self.summary_start)

    @property
    def summary_steps(self) -> range:
        """Indices of the final summary's steps (empty when there is no separate thinking part)."""
        return range(len(self.steps) if self.summary_start is None else self.summary_start, len(self.steps))


_VULGAR = {"½": "1/2", "⅓": "1/3", "⅔": "2/3", "¼": "1/4", "¾": "3/4", "⅕": "1/5", "⅖": "2/5", "⅗": "3/5",
           "⅘": "4/5", "⅙": "1/6", "⅚": "5/6", "⅛": "1/8", "⅜": "3/8", "⅝": "5/8", "⅞": "7/8"}
_VULGAR_RE = re.compile(r"(\d?)([" + "".join(_VULGAR) + "])")
_VULGAR_CHAR = re.compile("[" + "".join(_VULGAR) + "]")
"""What every match of :data:`_VULGAR_RE` holds, searched first: a class the regex engine skips to in C, where
``_VULGAR_RE`` (an optional digit first) is tried at every character (~8 ms on a 128k-character completion with one
non-ASCII character and no vulgar fraction)."""


def _vulgar(match: re.Match) -> str:
    whole, fraction = match.group(1), _VULGAR[match.group(2)]
    return f"({whole}+{fraction})" if whole else f"({fraction})"


_FRAC_CMD = re.compile(r"\\[dtc]?frac(?![A-Za-z])")
_FRAC_ARG = re.compile(r"[ ]*(?:(\{)|([0-9A-Za-z])|(\\[A-Za-z]+))")  # "{", one character, or a command
_TAG = re.compile(r"\\tag\*?[ \t]*\{[^{}\n]{0,20}\}[ \t]*")
MAX_FRAC_GROUP = 200
"""Longest braced argument :func:`brace_fractions` reads (a longer one is left as written)."""


def _frac_arg(text: str, at: int) -> tuple[str, int] | None:
    """The argument of a LaTeX command at ``text[at:]``: (its text without braces, the offset after it)."""
    match = _FRAC_ARG.match(text, at)
    if match is None:
        return None
    if match.group(1) is None:
        return match.group(2) or match.group(3), match.end()
    depth, i, stop = 0, match.start(1), min(len(text), match.start(1) + MAX_FRAC_GROUP)
    while i < stop:
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return text[match.start(1) + 1:i], i + 1
        i += 1
    return None


def brace_fractions(text: str) -> str:
    """LaTeX fractions whose arguments are bare tokens written with braces, as TeX reads them: ``\\frac{900}7``,
    ``\\frac 12``, ``\\dfrac5{12}``, ``\\frac\\pi2`` -> ``\\frac{900}{7}``, ``\\frac{1}{2}``, ``\\dfrac{5}{12}``,
    ``\\frac{\\pi}{2}`` (the extractors read braced arguments only); anything else is left as written.

    >>> brace_fractions(r"$\\frac{900}7 + \\frac 12 = \\frac5{12}$")
    '$\\\\frac{900}{7} + \\\\frac{1}{2} = \\\\frac{5}{12}$'
    """
    out, last = [], 0
    for match in _FRAC_CMD.finditer(text):
        if match.start() < last:  # inside an argument already rewritten
            continue
        first = _frac_arg(text, match.end())
        second = _frac_arg(text, first[1]) if first is not None else None
        if second is None:
            continue
        braced = text[match.end():first[1]].lstrip().startswith("{") and \
            text[first[1]:second[1]].lstrip().startswith("{")
        if braced:
            continue
        out.append(text[last:match.end()] + "{" + first[0] + "}{" + second[0] + "}")
        last = second[1]
    return "".join(out) + text[last:] if out else text


def _clean(text: str) -> str:
    """Control characters dropped; Unicode vulgar fractions spelled out for the exact evaluator
    (``¼ * 24`` -> ``(1/4) * 24``, ``2½`` -> ``(2+1/2)``); brace-less LaTeX fractions braced and equation
    labels dropped (:func:`normalize_latex`)."""
    text = normalize_latex(_CONTROL.sub("", text))
    return text if text.isascii() or _VULGAR_CHAR.search(text) is None else _VULGAR_RE.sub(_vulgar, text)


def normalize_latex(text: str) -> str:
    """``text`` with its brace-less fractions braced (:func:`brace_fractions`) and its equation labels
    (``\\tag{1}``, layout, not a term) dropped; lines and everything else as written.

    >>> normalize_latex(r"\\tag{1} a + \\frac 12 &= 18")
    'a + \\\\frac{1}{2} &= 18'
    """
    if "frac" in text:
        text = brace_fractions(text)
    if "\\tag" in text:
        text = _TAG.sub("", text)
    return text


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


def completion_parts(completion: Any) -> tuple[str, str, bool]:
    """``(thinking, summary, has_thinking)`` of a completion.

    The thinking is the content of every ``<think>…</think>`` block (an unclosed block runs to the end; a
    ``</think>`` with no opening tag, as when the chat template put ``<think>`` in the prompt, closes everything
    before it) and every ``reasoning_content``/``thinking``/``reasoning`` field; the summary is the rest of the
    assistant content. Without a thinking part, ``thinking`` is the whole text and ``summary`` is empty.
    ``"\\n".join`` of the non-empty parts is what the trace's steps and answer are read from.

    >>> completion_parts("<think>3 + 4 = 7</think>The answer is 7.")
    ('3 + 4 = 7', 'The answer is 7.', True)
    >>> completion_parts("3 + 4 = 7</think>\\nSo 7.")
    ('3 + 4 = 7', 'So 7.', True)
    >>> completion_parts({"role": "assistant", "reasoning_content": "a = 1", "content": "Final answer: 1"})
    ('a = 1', 'Final answer: 1', True)
    """
    if completion is None:
        return "", "", False
    if isinstance(completion, bytes):
        completion = completion.decode("utf-8", errors="replace")
    thinking: list[str] = []
    content: list[str] = []
    if isinstance(completion, str):
        content.append(completion)
    elif isinstance(completion, Mapping):
        reasoning, text = _message_text(completion)
        thinking.append(reasoning)
        content.append(text)
    elif isinstance(completion, Sequence):
        for message in completion:
            if isinstance(message, Mapping):
                if message.get("role", "assistant") != "assistant":
                    continue
                reasoning, text = _message_text(message)
                thinking.append(reasoning)
                content.append(text)
            elif isinstance(message, str):
                content.append(message)
    else:
        content.append(str(completion))
    text = "\n".join(p for p in content if p)
    lowered = text.lower()
    if "<think" in lowered or "</think" in lowered:
        inner, outer = _think_blocks(text, lowered)
        thinking.extend(inner)
        text = _THINK_TAGS.sub("", "".join(outer)).strip()
    thinking_text = "\n".join(p.strip() for p in thinking if p and p.strip())
    if not thinking_text:  # no thinking part (or an empty one): the whole text is the reasoning
        return text.strip(), "", False
    return thinking_text, text.strip(), True


def _think_blocks(text: str, lowered: str) -> tuple[list[str], list[str]]:
    """``(inside, outside)`` pieces of ``<think>`` blocks, by ``str.find`` (linear; no regex backtracking).

    A block runs to the first ``</think>`` after it, or to the end; a ``</think>`` before any ``<think>`` closes
    everything before it (the opening tag was in the prompt)."""
    inner: list[str] = []
    outer: list[str] = []
    pos = 0
    close = lowered.find("</think>")
    first = lowered.find("<think>")
    if close >= 0 and (first < 0 or close < first):
        inner.append(text[:close].strip())
        pos = close + len("</think>")
    while pos < len(text):
        i = lowered.find("<think>", pos)
        if i < 0:
            outer.append(text[pos:])
            break
        outer.append(text[pos:i])
        j = lowered.find("</think>", i + len("<think>"))
        if j < 0:
            inner.append(text[i + len("<think>"):].strip())
            break
        inner.append(text[i + len("<think>"):j].strip())
        pos = j + len("</think>")
    return inner, outer


def _last_boxed(text: str) -> str | None:
    """Content of the last ``\\boxed{...}`` / ``\\fbox{...}`` with balanced braces, or ``\\boxed 5``."""
    idx = max(text.rfind("\\boxed"), text.rfind("\\fbox"))
    if idx < 0:
        return None
    return _boxed_at(text, idx)


def _boxed_at(text: str, idx: int) -> str | None:
    """Content of the ``\\boxed`` / ``\\fbox`` that starts at ``idx``."""
    i = text.find("{", idx)
    # the split of the rest of the text is read only when more than the command comes before the brace (``\\boxed{``,
    # ``\\boxed {`` pass on the first test: the two tests are pure, so their order does not change the outcome)
    if i < 0 or (text[idx:i].strip() not in ("\\boxed", "\\fbox") and len(text[idx:].split(None, 1)) > 1):
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


MAX_STATED_ANSWERS = 16
"""At most this many distinct stated answers are read per completion, each at its last statement, the last ones
(:func:`other_stated_answers`)."""
MAX_STATED_SCAN = 256
"""At most this many answer markers are scanned per completion (bounded work on adversarial input)."""
_BOXED = re.compile(r"\\(?:boxed|fbox)\b")
_HASHES = re.compile(r"^[ \t]*####", re.M)
"""The two markers of a stated answer, a box and a ``####`` line, each scanned on its own (:func:`_stated_markers`)."""
_PLAIN_NUMBER = re.compile(r"-?[\d,]*\.?\d+%?")


def _stated_markers(text: str) -> list:
    """The first :data:`MAX_STATED_SCAN` answer markers in ``text`` (:data:`_BOXED`, :data:`_HASHES`), in order:
    scanned apart and merged (a ``\\boxed`` and a line of ``####`` never overlap, so the merge is what one joint
    pattern's ``finditer`` gives). The joint pattern, whose line-start branch no character announces, was tried at
    every position of the text; a search for a backslash is a skip to the next one, and the ``####`` branch runs only
    where the text has one."""
    found = list(islice(_BOXED.finditer(text), MAX_STATED_SCAN))
    if "####" in text:
        found = sorted([*found, *islice(_HASHES.finditer(text), MAX_STATED_SCAN)], key=Match.start)
    return found[:MAX_STATED_SCAN]


_ANSWER_PHRASE_FOLDED = re.compile(_ANSWER_PHRASE.pattern)
""":data:`_ANSWER_PHRASE` without re.I, for lower-cased ASCII text (its literals are lower case; re.I folds ASCII
letters exactly as ``str.lower`` does, and the text keeps its length; :func:`ascii_lowered`): the same matches,
scanned faster."""


def _folded_phrases(low: str) -> Iterator[Match]:
    """``_ANSWER_PHRASE_FOLDED.finditer(low)``, tried only where a match can start: each of its three openings ("final
    answer", "the answer", "answer") holds "answer" 6, 4 or 0 characters in, so every match starts at one of those
    offsets before an "answer" (``str.find``), tried in the order the scan reaches them (occurrences of "answer"
    cannot overlap, so the offsets of one all come before those of the next) and never before the last match's end.
    The scan alone tried the pattern at every position of the text."""
    end = 0
    i = low.find("answer")
    while i >= 0:
        for start in (i - 6, i - 4, i):
            if start >= end:
                m = _ANSWER_PHRASE_FOLDED.match(low, start)
                if m is not None:
                    yield m
                    end = m.end()
                    break
        i = low.find("answer", i + 6)


def _stated_phrases(text: str) -> list[tuple[int, int, str]]:
    """Each "the answer is N" that states a whole plain number: ``(start, end, N)``."""
    out = []
    low = ascii_lowered(text)
    scan = _ANSWER_PHRASE.finditer(text) if low is None else _folded_phrases(low)
    for count, m in enumerate(scan):  # read through spans: a folded match's groups are lower-cased
        if count >= MAX_STATED_SCAN:
            break
        before = text[max(0, m.start() - 1):m.start()]
        if "=" in text[m.start():m.start(1)] or before in ("/", "_") or before.isalnum():
            continue  # "2 points/answer = 48": a unit in an equation, not an answer stated
        after = text[m.end():m.end() + 12].lstrip(" \t")[:1]
        if after and not after.isspace() and (after not in ".$);" or text[m.end():m.end() + 2] in (".\\", "$\\")):
            continue  # the number starts a longer answer: "-1, 1", "-12+15i", "0.0011_2", "3! \\times 5!", "7 + (-2)"
        phrase = text[m.start(1):m.end(1)].strip().rstrip(".").strip("$").strip()
        if _PLAIN_NUMBER.fullmatch(phrase):  # "the answer is 36"; not "our answer: $17 \\cdot 44 = 748$"
            out.append((m.start(), m.end(), phrase))
    return out


def other_stated_answers(text: str, answer: str | None) -> tuple[tuple[str, str], ...]:
    """Every final answer ``text`` states (``\\boxed{…}``, ``\\fbox{…}``, ``#### …``, "the answer is …") written
    differently from ``answer``, each with the text between it and the answer's last statement (at most 2,000
    characters): ``\\boxed{18}`` or ``\\boxed{24}`` hedges; ``\\boxed{18}``, then ``18 + 6 = 24``, then
    ``\\boxed{24}`` was an intermediate result or a correction; the scorer tells them apart. The last
    :data:`MAX_STATED_ANSWERS` are read.

    >>> other_stated_answers("9 * 2 = 18, so $\\\\boxed{18}$ or $\\\\boxed{24}$.", "24")
    (('18', '$ or $'),)
    >>> other_stated_answers("The answer is 36.\\n#### 24", "24")
    (('36', '.\\n'),)
    >>> other_stated_answers("so 9 * 2 = 18.\\n#### 18", "18")
    ()
    """
    if answer is None or ("\\boxed" not in text and "\\fbox" not in text and "####" not in text
                          and "nswer" not in text):
        return ()
    found: list[tuple[int, int, str]] = []
    for m in _stated_markers(text):
        if m.group().endswith("####"):
            line_end = text.find("\n", m.end())
            line_end = len(text) if line_end < 0 else line_end
            found.append((m.start(), line_end, text[m.end():line_end].strip()))
        else:
            content = _boxed_at(text[:m.start() + 4 * MAX_ANSWER_CHARS + 16], m.start())
            if content is not None:
                found.append((m.start(), m.start() + len(m.group()) + len(content) + 2, content.strip()))
    if "nswer" in text or "NSWER" in text:
        found = sorted(found + _stated_phrases(text))
    # each distinct answer at its last statement (a hedge is not pushed out of the window by restating the answer)
    last: dict[str, tuple[int, int, str]] = {}
    for entry in found:
        last[" ".join(entry[2].split())] = entry
    found = sorted(last.values())[-MAX_STATED_ANSWERS:]
    if len(found) < 2:
        return ()
    norm = " ".join(answer.split())
    # the answer read (a box wins over a later "####"): its last statement; the text between it and another
    # answer, in whichever order they come, is where a derivation or a correction would say why one replaced the
    # other
    final = max((k for k, (_, _, c) in enumerate(found) if " ".join(c.split()) == norm), default=len(found) - 1)
    f_start, f_end, _ = found[final]
    return tuple((c, (text[end:f_start] if start < f_start else text[f_end:start])[:2_000])
                 for k, (start, end, c) in enumerate(found)
                 if k != final and c and " ".join(c.split()) != norm and len(c) <= MAX_ANSWER_CHARS)


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
        gsm = _GSM8K_ANSWER.findall(tail) if "####" in tail else None  # every match holds a "####"
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


def split_steps(text: str, *, prose: bool = False) -> list[str]:
    """Split reasoning text into atomic steps: paragraphs/lines, and long lines at sentence ends.

    ``prose=True`` splits each line further into sentence-level steps
    (:func:`rewards.parsing.segmentation.prose_steps`): the mode for long R1-style reasoning.

    GSM8K's solutions put one step per line; model output often uses blank-line paragraphs, bullet lines or
    ``Step k:`` headers. A GSM8K ``#### X`` line is the answer, not a step.

    >>> split_steps("First 2 + 3 = 5.\\nThen 5 * 2 = 10.\\n#### 10")
    ['First 2 + 3 = 5.', 'Then 5 * 2 = 10.']

    A display spread over lines stays one step:

    >>> len(split_steps("So \\\\begin{align*}\\nx &= 2 + 3\\\\\\\\\\n&= 5\\n\\\\end{align*}\\nDone."))
    2
    """
    if "####" in text:  # every match holds one: without, the pattern's scan of each line start changes nothing
        text = _GSM8K_ANSWER.sub("", text)
    lines = [c.strip() for c in text.split("\n")] if "\n" in text else None
    chunks = join_displays(lines, max_chars=MAX_STEP_CHARS) if lines else [text.strip()]
    if "\\begin{" in text:
        chunks = [row for chunk in chunks for row in (display_rows(chunk) if "\\begin{" in chunk else [chunk])]
    if prose:
        return prose_steps(chunks, max_step_chars=MAX_STEP_CHARS, max_steps=MAX_STEPS)
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
            thinking, summary, has_thinking = completion_parts(completion)
            thinking, summary = _clean(thinking), _clean(summary)
        except Exception as exc:  # noqa: BLE001 - untrusted structure; never raise
            return Trace(problem_text, (), None, None, (f"unreadable completion: {type(exc).__name__}",))
        text = "\n".join(p for p in (thinking, summary) if p)
        if len(text) > MAX_CHARS:
            issues.append(f"oversized: {len(text)} characters > {MAX_CHARS}")
            return Trace(problem_text, (), None, None, tuple(issues))
        prose = is_prose(text, has_thinking=has_thinking)
        if has_thinking:
            step_list = split_steps(thinking, prose=prose)
            summary_start = len(step_list)
            step_list += split_steps(summary, prose=prose) if summary else []
        else:
            step_list, summary_start = split_steps(text, prose=prose), None
        if len(step_list) > MAX_STEPS:
            issues.append(f"oversized: more than {MAX_STEPS} steps")
            step_list = step_list[:MAX_STEPS]
            summary_start = None if summary_start is None else min(summary_start, MAX_STEPS)
        # with a thinking part, the summary states the answer (a box tried while thinking is no answer); the whole
        # text when the summary states none
        answer, source = extract_final_answer(summary) if has_thinking and summary else (None, None)
        if answer is None:
            answer, source = extract_final_answer(text)
        if not step_list and not issues:
            issues.append("empty: no reasoning text")
        # thinking may try answers out; its closing line is its conclusion, read with the summary ("So \\boxed{36}
        # or \\boxed{24}.</think> #### 24" hedges; a summary that computes the answer corrects it)
        others = other_stated_answers(_closing_line(thinking) + "\n" + summary if has_thinking else text, answer)
        if has_thinking and answer is not None and ("\\boxed" in thinking or "\\fbox" in thinking):
            seen = {" ".join(c.split()) for c, _ in others}
            others += tuple(e for e in thinking_boxes(thinking, answer, summary)
                            if " ".join(e[0].split()) not in seen)
        return Trace(problem_text, tuple(step_list), answer, source, tuple(issues), summary_start,
                     "prose" if prose else "lines", others)
    if not step_list and not issues:
        issues.append("empty: no reasoning text")
    return Trace(problem_text, tuple(step_list), answer, source, tuple(issues))


_ASKED_BOX = re.compile(r"\\boxed\{[^{}\n]{0,80}\}\s*\$?\s*\?")


def _closing_line(thinking: str) -> str:
    """The thinking's last non-empty line (at most 2,000 characters), the conclusion it hands the summary, without
    the boxes it only asks about ("Is it \\boxed{36}?": a value tried, not stated).

    >>> _closing_line("9 * 2 = 18.\\nSo $\\\\boxed{18}$ or $\\\\boxed{24}$.\\n")
    'So $\\\\boxed{18}$ or $\\\\boxed{24}$.'
    >>> _closing_line("18 + 6 = 24\\nIs it $\\\\boxed{36}$? No.")
    'Is it $? No.'
    """
    tail = thinking.rstrip()[-2_000:]
    return _ASKED_BOX.sub("?", tail[tail.rfind("\n") + 1:].strip())


_SENTENCE_BREAK = re.compile(r"(?<=[!?\n])|(?<=\.)(?!\d)")
"""Where a sentence ends (after ``!``, ``?``, a line end, or a full stop that is no decimal point): a split, linear
in the text."""


def statements(text: str) -> str:
    """``text`` without the sentences it only asks ("Is it 36? No, 6 miles." -> " No, 6 miles."): what a trace
    asserts. A number that stands only in a question is tried, not reached.

    >>> statements("Maybe the answer is 18? Or is it 19?\\nSo 16 - 3 - 4 = 9.")
    '\\nSo 16 - 3 - 4 = 9.'
    """
    if "?" not in text:
        return text
    return "".join(part for part in _SENTENCE_BREAK.split(text) if not part.rstrip().endswith("?"))


MAX_SETTLING_CHARS = 2_000
"""How much of the text after a box :func:`thinking_boxes` reads for what settles it: the first and the last this
many characters of the thinking after it and of the summary (a correction that follows the box, or a conclusion at
the end)."""


def thinking_boxes(thinking: str, answer: str, summary: str = "") -> tuple[tuple[str, str], ...]:
    """The boxes of a thinking part that state something other than the final ``answer`` and that the completion
    does not settle, each with the text after it where a correction would stand: a boxed value in the thinking that
    differs from the final answer is a hedge — a grader that reads the first box, or the thinking, reads it — asked
    about ("Or is it \\boxed{19}?") or stated.

    Settled, and so no hedge: a later sentence of the thinking states the final answer and does not ask ("No: 36 is
    only an intermediate value. So the answer is 24."; not the box's own sentence: "So \\boxed{36} or
    \\boxed{24}." hedges), or — where the thinking reaches the final answer
    at all (states it outside a question, anywhere) — a computation after the box, in the thinking or the summary,
    recomputes it: the scorer reads that from the text returned (:func:`rewards.scoring.score._hedged`, as for
    :func:`other_stated_answers`). A thinking that reaches nothing (only questions: "Maybe the answer is 18? Or is it
    \\boxed{19}?") gets only the rest of the thinking, so a summary that does the work does not settle its box.
    Bounded: the last :data:`MAX_STATED_ANSWERS` distinct boxes, each at its last statement; of the text after it,
    the first and the last :data:`MAX_SETTLING_CHARS` characters (of the thinking, then of the summary).

    >>> thinking_boxes("Maybe the answer is 18?\\nOr is it $\\\\boxed{19}$?\\nCould it be 16?", "18", "9 * 2 = 18")
    (('19', '$?\\nCould it be 16?'),)
    >>> thinking_boxes("Is it $\\\\boxed{36}$?\\nNo: 36 is only an intermediate value.\\nSo the answer is 24.", "24")
    ()
    >>> thinking_boxes("18 + 6 = 24.\\nSo $\\\\boxed{36}$? No.", "24", "18 + 6 = 24")
    (('36', '$? No.\\n18 + 6 = 24'),)
    """
    norm = " ".join(answer.split())
    token = re.compile(r"(?<![\d.])" + re.escape(norm) + r"(?![\d])") if norm else None
    last: dict[str, int] = {}
    for m in islice(_BOXED.finditer(thinking), MAX_STATED_SCAN):
        content = _boxed_at(thinking[:m.start() + 4 * MAX_ANSWER_CHARS + 16], m.start())
        if content is not None and content.strip():
            last[" ".join(content.split())] = m.start() + len(m.group()) + len(content) + 2
    reached = token is not None and token.search(statements(thinking)) is not None
    out = []
    for content, end in sorted(last.items(), key=lambda kv: kv[1])[-MAX_STATED_ANSWERS:]:
        if content == norm or len(content) > MAX_ANSWER_CHARS:
            continue
        rest = _ends(thinking[end:])
        later = "".join(_SENTENCE_BREAK.split(rest, maxsplit=1)[1:])  # past the box's own sentence ("36 or 24")
        if reached and token.search(statements(later)):
            continue  # settled: a later sentence of the thinking states the final answer
        out.append((content, rest + "\n" + _ends(summary) if reached and summary else rest))
    return tuple(out)


def _ends(text: str) -> str:
    """``text``, or its first and last :data:`MAX_SETTLING_CHARS` characters when it is longer than both."""
    return text if len(text) <= 2 * MAX_SETTLING_CHARS else \
        text[:MAX_SETTLING_CHARS] + "\n" + text[-MAX_SETTLING_CHARS:]


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
