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
