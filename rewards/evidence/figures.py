"""Figure code: the ``[asy] ... [/asy]`` blocks of MATH solutions state no quantity (:func:`outside_figures`).
"""

from __future__ import annotations

import re




_FIGURE = re.compile(r"\[(/?)asy\]", re.I)
_QUOTED = re.compile(r'"[^"\n]*"')
_CODE_LINE = re.compile(r";|--|\.\.|^\s*[{}]?\s*$")
"""An Asymptote line: a statement (``;``), a path continued over lines (``--``, ``..``), a brace or nothing."""


def outside_figures(text: str, inside: bool) -> tuple[str, bool]:
    """``text`` without the figure code of ``[asy] ... [/asy]`` blocks — MATH solutions draw with Asymptote, and
    ``draw(dir(60*i)--dir(60*(i+1)));`` states no quantity — and whether a block is still open at its end. Quoted
    text inside a figure stays (``label("5 eggs", (0,0));`` states what any prose would)."""
    if not inside and "[" not in text:
        return text, False
    parts, pos = [], 0
    for match in _FIGURE.finditer(text):
        parts.append(text[pos:match.start()] if not inside else _quoted(text[pos:match.start()]))
        inside = match.group(1) != "/"
        pos = match.end()
    parts.append(text[pos:] if not inside else _quoted(text[pos:]))
    return " ".join(parts), inside


def _quoted(code: str) -> str:
    """What figure code says in words: its quoted labels, and any line that is no code (no ``;``, no ``(``): an
    ``[asy]`` tag is no licence to state a value unseen."""
    prose = [line for line in code.split("\n") if not _CODE_LINE.search(line)]
    return " ".join([*_QUOTED.findall(code), *prose])


def figure_code_spans(text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` that are figure code: the inside of each ``[asy] ... [/asy]`` block (to the end of
    ``text`` when it stays open), less its quoted labels (``label("4 yds", (2,5), N)`` states a length a figure
    shows; ``(2,5)`` is where it is drawn).

    >>> text = 'Side 3. [asy] draw((0,0)--(9,0)); label("4 yds",(2,5)); [/asy]'
    >>> [text[a:b] for a, b in figure_code_spans(text)]
    [' draw((0,0)--(9,0)); label(', ',(2,5)); ']
    """
    if "[" not in text:
        return []
    spans, start = [], None
    for match in _FIGURE.finditer(text):
        if match.group(1) != "/" and start is None:
            start = match.end()
        elif match.group(1) == "/" and start is not None:
            spans.extend(_code_parts(text, start, match.start()))
            start = None
    if start is not None:
        spans.extend(_code_parts(text, start, len(text)))
    return spans


def _code_parts(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """``(start, end)`` less its quoted strings."""
    out, pos = [], start
    for quoted in _QUOTED.finditer(text, start, end):
        out.append((pos, quoted.start()))
        pos = quoted.end()
    out.append((pos, end))
    return [(a, b) for a, b in out if b > a]
