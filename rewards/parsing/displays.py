"""LaTeX displays in a completion's text: joining a display written over several lines into one chunk, and reading an
aligned display of arithmetic rows as one step per equation, as the same derivation written in plain lines is read.

>>> join_displays(["$$", "1 + 2 = 3", "$$", "So 3."], max_chars=2000)
['$$\\n1 + 2 = 3\\n$$', 'So 3.']
"""

from __future__ import annotations

import re
from itertools import islice

__all__ = ["join_displays", "display_rows", "MAX_DISPLAY_ROWS"]


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


def join_displays(lines: list[str], *, max_chars: int) -> list[str]:
    """Keep a multi-line display (``align``, ``\\[ … \\]``, ``$$ … $$``) in one chunk: its lines are one
    derivation (``&= …`` continues the line before) and only read right as math together; a chunk grows to at most ``max_chars``."""
    out: list[str] = []
    depth = 0
    for line in lines:
        if depth > 0 and out and len(out[-1]) + len(line) < max_chars:
            out[-1] = out[-1] + "\n" + line
        else:
            out.append(line)
            depth = 0
        if depth or ("\\" in line or "$$" in line) and _DISPLAY_OPEN.search(line):  # each branch needs one
            depth = _display_depth(line, depth)
    return out


_ROW_ENV = re.compile(r"\\begin\{(align\*?|aligned|alignat\*?|alignedat|eqnarray\*?|gather\*?|gathered|flalign\*?)\}")
_ROW_BREAK = re.compile(r"\\\\(?:\[[^\]\n]{0,20}\])?")
_CONTINUES = re.compile(r"(?:\\q?quad\b|\\[,;:! ]|\s)*(?:&|=|\+|-|<|>|\\(?:cdot|times|le|ge|leq|geq|approx|ne|neq|"
                        r"[Rr]ightarrow|Longrightarrow|implies|iff|Leftrightarrow|therefore|to|text)\b)")
"""A row that continues the one before (``&= 5``, ``+ 3``, ``\\quad = 7``, ``\\Rightarrow 4x &= 4``, ``\\text{so} …``)
rather than opening its own equation."""
_ARITHMETIC_COMMAND = re.compile(r"\\(?:[dt]?frac|cdot|times|div|left|right|q?quad|[,;:! ])(?![A-Za-z])")
_LETTER = re.compile(r"[A-Za-z]")
MAX_DISPLAY_ROWS = 64
"""An aligned display of more rows than this is left in one step."""


def _lhs(row: str) -> str:
    """A row's left side (before its ``&``), spaces dropped: a row that restates the one before's left side
    (``5x-1 &= -(x+3)``, then ``5x-1 &= -x-3``) continues its derivation."""
    return "".join(row.split("&", 1)[0].split()) if "&" in row else "\0"


def display_rows(chunk: str) -> list[str]:
    """An aligned display (``align``, ``aligned``, ``gather``, ``eqnarray`` …) whose rows are separate equations of
    numbers alone (no variable, no words: arithmetic), as one step per equation, each in the display's environment: the same derivation written in plain lines is one step
    per line, and the two must read alike (a row that continues the one before — ``&= 5``, ``\\Rightarrow 4x &= 4``,
    the same left side again — stays with it). One display
    per chunk, no environment nested inside (``cases``, a matrix: rows that are no equations) and at most
    :data:`MAX_DISPLAY_ROWS` rows; anything else is left as it is.

    >>> display_rows("$$\\n\\\\begin{aligned}\\n1 + 2 &= 3 \\\\\\\\\\n&= 6 - 3 \\\\\\\\\\n3 + 4 &= 7\\n\\\\end{aligned}\\n$$")
    ['$$\\\\begin{aligned}\\n1 + 2 &= 3 \\\\\\\\\\n&= 6 - 3\\\\end{aligned}$$', '$$\\\\begin{aligned}\\n3 + 4 &= 7\\\\end{aligned}$$']
    >>> len(display_rows("\\\\begin{align*} 4x &= 4 \\\\\\\\ x &= 1 \\\\end{align*}"))  # algebra: read together
    1
    """
    begins = list(islice(_ROW_ENV.finditer(chunk), 2))
    if len(begins) != 1 or chunk.count("\\begin{") != 1:
        return [chunk]
    env = begins[0].group(1)
    close = chunk.find("\\end{" + env + "}", begins[0].end())
    if close < 0:
        return [chunk]
    rows = _ROW_BREAK.split(chunk[begins[0].end():close])
    if len(rows) < 2 or len(rows) > MAX_DISPLAY_ROWS:
        return [chunk]
    groups: list[str] = []
    for row in rows:
        if not row.strip():
            continue
        if groups and (_CONTINUES.match(row) or _lhs(row) == _lhs(groups[-1].rsplit("\\\\", 1)[-1])):
            groups[-1] = groups[-1].rstrip() + " \\\\" + row
        else:
            groups.append(row)
    if len(groups) < 2 or any(_LETTER.search(_ARITHMETIC_COMMAND.sub(" ", g)) for g in groups):
        return [chunk]  # algebra (a variable, words): its rows are read together, as the checker links them
    before, after = chunk[:begins[0].start()], chunk[close + len("\\end{" + env + "}"):]
    opening, closing = before.strip(), after.strip()
    delims = {"$$": "$$", "\\[": "\\]"}
    lead = next((d for d in delims if opening.endswith(d) and closing.startswith(delims[d])), "")
    head, tail = opening[:len(opening) - len(lead)], closing[len(delims.get(lead, "")):]
    out = [f"{lead}{begins[0].group()}{g.rstrip()}\\end{{{env}}}{delims.get(lead, '')}" for g in groups]
    if head.strip():
        out[0] = head.rstrip() + " " + out[0]
    if tail.strip():
        out[-1] = out[-1] + " " + tail.lstrip()
    return out
