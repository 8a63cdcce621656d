r"""Equations whose first side is a name written in words: ``\[ \text{Distance} = \sqrt{6^2 + 8^2} \]``.

Competition solutions often name a quantity in words and restate the name on every line of its computation:

    \[ \text{Number of Revolutions} = \frac{19{,}404}{6} \]  \[ \text{Number of Revolutions} = 3234 \]

The arithmetic extractor (:func:`rewards.checks.arithmetic.extract_equations`) trims words off a side, so such an
equation loses its first side: ``\text{Time} = \frac{3234}{20} = 161.7`` still reads ``\frac{3234}{20} = 161.7``,
but ``\text{Distance} = \sqrt{36 + 64}`` alone reads nothing, and the run of lines that restate the name is never
joined into the chain it is (:mod:`rewards.checks.named_chains`). :func:`named_text` writes each such worded name as
a letter with a subscript of two letters (``D_{qm}``, a checksum of the words, no digit that could be read as a
number, so two names join only when their
words are the same), padded with blanks to the same length, so every offset into the step stays where it was. The
named-chain rules then apply unchanged: a join is kept only where the new link holds, and a false link refutes only
when the second value follows the first at once (``named_chains``).

Only a name that opens an equation is read: the ``\text{...}`` stands right after a math opener (``\[``, ``$$``,
``$``, ``\(``, a ``\\`` line break or an ``&``) and right before ``=`` or ``\approx``; a unit after a number
(``2 \text{ cm} = 20 \text{ mm}``) is never one. Bounded: at most :data:`MAX_NAMES` names per step, each of at most
:data:`MAX_NAME_CHARS` characters.

>>> named_text(r"\[ \text{Distance} = \sqrt{36 + 64} \]")
'\\[ D_{fa}          = \\sqrt{36 + 64} \\]'
>>> named_text(r"so $2 \text{ cm} = 20 \text{ mm}$")
'so $2 \\text{ cm} = 20 \\text{ mm}$'
"""

from __future__ import annotations

import re
import zlib

__all__ = ["MAX_NAMES", "MAX_NAME_CHARS", "named_text", "spoken"]

MAX_NAMES = 32
"""At most this many worded names are read per step."""
MAX_NAME_CHARS = 60
"""A worded name of more characters is prose, not a name: left as it is."""

_WORDED = re.compile(r"(?:\\\[|\$\$|\$|\\\(|\\\\|&)[ \t]*(\\(?:text|mathrm|textbf|textit|mbox)\s*\{([A-Za-z][A-Za-z' ]"
                     r"{0,%d}?)\s*\})(?=\s*(?:=|\\approx))" % MAX_NAME_CHARS)


_LOWER = "abcdefghijklmnopqrstuvwxyz"


def _placeholder(words: str, width: int) -> str:
    """A letter with a two-letter subscript, from ``words``, padded with blanks to ``width`` characters."""
    key = " ".join(words.lower().split())
    code = zlib.crc32(key.encode())
    name = f"{key[0].upper()}_{{{_LOWER[code % 26]}{_LOWER[code // 26 % 26]}}}"  # letters: no number is read from it
    return name + " " * (width - len(name))


def named_text(step: str) -> str:
    """``step`` with every worded name that opens an equation written as a letter name of the same length (see the
    module docs); ``step`` itself when there is none."""
    if "\\text" not in step and "\\math" not in step and "\\mbox" not in step:
        return step
    pieces, last = [], 0
    for count, m in enumerate(_WORDED.finditer(step)):
        if count >= MAX_NAMES:
            break
        start, end = m.span(1)
        if end - start < 6:  # no room for a letter name ("\mbox{}" is never so short with a word inside)
            continue
        pieces += [step[last:start], _placeholder(m.group(2), end - start)]
        last = end
    if not pieces:
        return step
    pieces.append(step[last:])
    return "".join(pieces)


def spoken(step: str, named: str, detail: str) -> str:
    """``detail`` (a check's sentence about ``named``) with each letter name written back in the step's words."""
    if named is step:
        return detail
    for m in _WORDED.finditer(step):
        start, end = m.span(1)
        letter = named[start:end].strip()
        if letter and letter in detail:
            detail = detail.replace(letter, m.group(1))
    return detail
