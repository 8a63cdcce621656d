"""Steps of long R1-style prose: lower-case, paragraph- and sentence-level reasoning with reflection.

GSM8K/MATH solutions put one step per line, and :func:`rewards.parsing.trace.split_steps` keeps each line whole.
Long chain-of-thought policies (DeepSeek-R1 and its descendants) write paragraphs of lower-case prose in which one
paragraph may compute a value, doubt it and recompute it ("so 36 * 6 = 218. wait, that is wrong: 36 * 6 = 216.").
A line-level step would hold both the slip and its correction, and nothing downstream could tell them apart. In
*prose mode* each line (paragraph) is split into sentences and the sentences are grouped into steps:

1. a paragraph or line break always ends a step (a multi-line display stays one step, as in line mode);
2. a sentence that starts with a reflection cue (:data:`CUE_START`: "wait", "actually", "hmm", "no,", "let me
   recheck", "on second thought", "alternatively", "so the answer"...) starts a new step;
3. a sentence after one that states an equation (``=``) starts a new step, so each step computes at most one
   sentence's worth and the talk that leads to a computation stays with it ("next, the loaves. she sells 36 of
   them ..., so that's 36 * 6 = 216 dollars." is one step);
4. a step never exceeds :data:`PROSE_STEP_CHARS` characters (longer sentences are cut at that length).

Sentence ends are ``.``, ``!`` or ``?`` followed by white space, except after a common abbreviation (``e.g.``,
``i.e.``, ``vs.``) or a list marker (``1.``), and never inside inline math (``$...$``, ``\\(...\\)``); the next
sentence may start lower-case. A decimal point is never followed by white space, so ``3.5`` never splits.

:func:`is_prose` decides the mode: a completion with a separate thinking part (``<think>``, ``reasoning_content``,
``thinking``) is prose; so is a text longer than :data:`PROSE_MIN_CHARS`, and a text in which a reflection cue
starts a sentence in mid-line (``". wait, ..."``). Everything else keeps line mode, byte for byte.

Everything here is a single left-to-right pass of precompiled regexes: linear in the text length.

>>> prose_steps(["next, the loaves. she sells 36 of them, so 36 * 6 = 218 dollars. wait, that is wrong: "
...              "36 * 6 = 216 dollars. so the loaves bring in 216."])
['next, the loaves. she sells 36 of them, so 36 * 6 = 218 dollars.', 'wait, that is wrong: 36 * 6 = 216 dollars.', \
'so the loaves bring in 216.']
>>> is_prose("Janet sells 16 - 3 - 4 = 9 eggs.\\nShe makes 9 * 2 = 18 dollars.", has_thinking=False)
False
>>> is_prose("so 16 - 3 - 4 = 8. wait, that's wrong: 16 - 3 - 4 = 9.", has_thinking=False)
True
"""

from __future__ import annotations

import re
from typing import Iterable

__all__ = ["CUE_START", "PROSE_MIN_CHARS", "PROSE_STEP_CHARS", "is_prose", "prose_steps", "sentences"]

PROSE_MIN_CHARS = 8_000
"""A completion longer than this is segmented as prose even without a thinking part or a mid-line cue (no
GSM8K/MATH reference solution comes near it; ProcessBench's longest row is about 6,000 characters and arrives
pre-split anyway)."""
PROSE_STEP_CHARS = 1_200
"""The longest step prose mode makes: sentences are grouped up to this length (rule 4)."""

CUE_START = re.compile(
    r"(?:but\s+|and\s+|oh,?\s+|okay,?\s+|ok,?\s+)?(?:"
    r"wait|actually|hmm+|hold on|oops|whoops|uh|no[,.!:]|nope|not quite|on second thought|on reflection"
    r"|alternatively|another (?:way|approach)|let me (?:re-?check|double[- ]?check|check|verify|redo|re-?compute"
    r"|recalculate|reconsider|re-?examine|re-?read|think again|try|start over|go back|see)"
    r"|let's (?:re-?check|double[- ]?check|check|verify|redo|re-?compute|recalculate|reconsider|try|start over)"
    r"|that(?:'s| is| was) (?:wrong|not right|incorrect|a mistake|an error)|i made (?:a|an) (?:mistake|error)"
    r"|(?:my |a )?mistake|correction|scratch that|never ?mind|so the (?:final )?answer|therefore|thus|so,? in total"
    r")\b",
    re.I,
)
"""A reflection cue at the start of a sentence: the sentence opens a new step (rule 2). Case-insensitive."""

_MIDLINE_CUE = re.compile(
    r"[.!?][ \t]+(?:but\s+)?(?:wait|actually|hmm+|hold on|oops|no,|on second thought|that(?:'s| is) (?:wrong|not right)"
    r"|i made (?:a|an) (?:mistake|error)|let me (?:re-?check|double[- ]?check|redo|re-?compute|recalculate))\b", re.I)
_SENTENCE_BREAK = re.compile(r"[.!?]+[\"')\]]*\s+")
_ABBREVIATIONS = frozenset(("e.g", "i.e", "vs", "etc", "approx", "cf", "dr", "mr", "mrs", "ms", "st", "fig", "eq",
                            "resp"))
_LIST_MARKER = re.compile(r"\s*(?:\d{1,3}|[a-z]|[ivx]{1,4})\s*", re.I)


def is_prose(text: str, *, has_thinking: bool) -> bool:
    """Whether ``text`` is segmented in prose mode (see the module docstring for the rule)."""
    if has_thinking or len(text) > PROSE_MIN_CHARS:
        return True
    return _MIDLINE_CUE.search(text) is not None


def _math_open(segment: str, dollars: int, paren: int) -> tuple[int, int]:
    """Running count of unescaped ``$`` and depth of ``\\(`` after ``segment``."""
    dollars += segment.count("$") - segment.count("\\$")
    paren += segment.count("\\(") - segment.count("\\)")
    return dollars, max(paren, 0)


def sentences(line: str) -> list[str]:
    """Sentences of one line: split at ``.!?`` + white space outside inline math, abbreviations and list markers.

    >>> sentences("so x = 3.5. then e.g. y = 2! done")
    ['so x = 3.5.', 'then e.g. y = 2!', 'done']
    """
    out: list[str] = []
    start = 0
    scanned = 0
    dollars = paren = 0
    for match in _SENTENCE_BREAK.finditer(line):
        dollars, paren = _math_open(line[scanned:match.start()], dollars, paren)
        scanned = match.start()
        if dollars % 2 or paren:
            continue  # inside inline math
        piece = line[start:match.end()].strip()
        head = line[start:match.start()]
        last = head[-8:].rsplit(None, 1)[-1] if head.strip() else ""
        if last.lower().rstrip(".") in _ABBREVIATIONS and last[:1].isalpha():
            continue
        if len(head) <= 8 and _LIST_MARKER.fullmatch(head):
            continue
        if piece:
            out.append(piece)
        start = match.end()
    tail = line[start:].strip()
    if tail:
        out.append(tail)
    return out


def _cut(piece: str, limit: int) -> Iterable[str]:
    while len(piece) > limit:
        yield piece[:limit]
        piece = piece[limit:]
    if piece:
        yield piece


def prose_steps(chunks: Iterable[str], *, max_step_chars: int = PROSE_STEP_CHARS, max_steps: int | None = None
                ) -> list[str]:
    """Group the sentences of each line/paragraph ``chunk`` into steps (rules 1–4 of the module docstring).

    ``max_steps``: stop once more than this many steps were made (the caller reports the trace as oversized).
    A chunk that holds a multi-line display (a newline inside it) is one step, as in line mode.
    """
    limit = max(1, min(max_step_chars, PROSE_STEP_CHARS))
    steps: list[str] = []
    for chunk in chunks:
        chunk = chunk.strip()
        if not chunk:
            continue
        if "\n" in chunk:  # a joined display: its lines only read right together
            steps.extend(_cut(chunk, max(limit, max_step_chars)))
            continue
        current: list[str] = []
        size = 0
        has_eq = False
        for sentence in sentences(chunk):
            for piece in _cut(sentence, limit):
                if current and (has_eq or size + len(piece) + 1 > limit or CUE_START.match(piece)):
                    steps.append(" ".join(current))
                    current, size, has_eq = [], 0, False
                current.append(piece)
                size += len(piece) + 1
                has_eq = has_eq or "=" in piece
        if current:
            steps.append(" ".join(current))
        if max_steps is not None and len(steps) > max_steps:
            break
    return steps
