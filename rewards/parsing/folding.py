"""Lower-casing that keeps a case-insensitive pattern's matches: :func:`ascii_lowered`, for scans that search the
lower-cased text with a pattern compiled without ``re.I`` (its literals lower-case ASCII) instead of the text with
``re.I`` (two to five times faster: ``re.I`` folds every character it compares)."""

from __future__ import annotations

__all__ = ["ascii_lowered"]

_NOT_FOLDED_BY_LOWER = ("\u0131", "\u017f")
"""ı and ſ: ``re.I`` matches them to i and s, ``str.lower`` keeps them (every other character that ``re.I`` matches to
an ASCII letter is one that ``str.lower`` maps to it, or one whose lower-case form is longer: İ)."""


def ascii_lowered(text: str) -> str | None:
    """``text.lower()`` where an ``re.I`` pattern whose letters are ASCII matches ``text`` exactly where its lower-case
    form without ``re.I`` matches ``text.lower()``: the same length (every offset stays; "İ" becomes two characters)
    and neither ı nor ſ (:data:`_NOT_FOLDED_BY_LOWER`); else ``None``. ASCII text always qualifies; so does a long
    trace with a dash or a quote mark outside ASCII, which keeps the folded scans. (Checked over every code point:
    ``str.lower`` keeps whether a character is a digit, a word character, a blank, ``$`` or a newline.)

    >>> ascii_lowered("The Answer is 5 – Done"), ascii_lowered("İ"), ascii_lowered("ſo")
    ('the answer is 5 – done', None, None)
    """
    low = text.lower()
    if text.isascii():
        return low
    if len(low) != len(text) or _NOT_FOLDED_BY_LOWER[0] in text or _NOT_FOLDED_BY_LOWER[1] in text:
        return None
    return low
