r"""The tokenizer: step text (plain or LaTeX math) to a flat list of tokens (no eval, one linear regex scan).

A token is a :class:`Token` ``(kind, val, start, end, space)``.  It is a :class:`~typing.NamedTuple`, and the hot
loops (this tokenizer, the parser, the side walks of extraction) read it by index (``t[0]`` is ``t.kind``): a tuple
index is the fastest read CPython has, and this runs on the reward's hot path.

>>> toks = []
>>> tokenize("3 x 4 = 12 cm", 0, 13, False, toks)
>>> [(t.kind, t.val) for t in toks]
[('n', '3'), ('x', 'x'), ('n', '4'), ('=', '='), ('n', '12'), ('w', 'cm')]
>>> toks[-1]
Token(kind='w', val='cm', start=11, end=13, space=True)
>>> toks = []; tokenize(r"\frac{1,200}{4}", 0, 15, True, toks); [t[1] for t in toks]
['frac', '{', '1200', '}', '{', '4', '}']
"""

from __future__ import annotations

import re
from typing import NamedTuple

__all__ = ["Token", "tokenize", "KEYWORDS", "FUNCS", "END_KINDS", "START_KINDS"]


class Token(NamedTuple):
    r"""One token of step text.

    ``kind`` (one character), ``val`` (its normalised text), ``start``/``end`` (its span in the text), ``space``
    (whitespace, or the start of the text, precedes it; always False in math mode).  Kinds::

        n number (val: raw digits, commas removed)   o operator (+ - * / ^)   ( ) open/close (val ( or [)
        { } braces   % percent   ! factorial   = relation (val '=' or '~' for approx)   $ currency
        w word (unit or keyword, val lower-case)   v free variable   x the letter x (times or variable)
        c command (val canonical name)   t \text{...} label/unit   _ subscript   d degree marker
        | boundary (sentence punctuation, relation other than =, unknown)   # a window edge (extraction)
    """

    kind: str
    val: str
    start: int
    end: int
    space: bool


# ``_new(Token, fields)`` builds a Token in C, without NamedTuple's Python-level ``__new__`` (four times faster)
_new = tuple.__new__

# ------------------------------------------------------------------------------------ tokenizer
_TOK_RE = re.compile(
    r"""
    (\s*)                                                          # 1 leading whitespace
    (?:(\d{1,3}(?:(?:,|,\\!|\{,\})\d{3})+(?!\d)(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)   # 2 number (1,\!000 too)
     |\\(text|mbox|mathrm|textrm|textit|operatorname|mathsf|texttt|hbox|emph|textnormal|textsf|unit)
        (?![A-Za-z])\s*\{([^{}]{0,200})\}                          # 3 name, 4 \text{content}
     |\\([dtc]?frac|[dt]?binom)(?![A-Za-z])[ ]*(\d)[ ]*(\d)        # 5-7 \frac34
     |\\(sqrt)(?![A-Za-z])[ ]*(\d)                                 # 8-9 \sqrt2
     |(\\(?:left|right|bigl|bigr|Bigl|Bigr|big|Big)\.|\\color\s*\{[^{}]{0,30}\})  # 10 layout
     |(\\(?:begin|end)[ ]*\{[^{}\n]{0,30}\}|\\[A-Za-z]+|\\[^A-Za-z]?)  # 11 LaTeX command
     |([A-Za-z]{2,}(?:[ ]+[A-Za-z]{2,}(?![A-Za-z]))*|[A-Za-z])     # 12 word(s)
     |(\*\*|==|\.\.\.|\S)                                          # 13 anything else
    )
    """,
    re.S | re.X,
)

_CHAR = {
    "+": ("o", "+"), "-": ("o", "-"), "−": ("o", "-"), "*": ("o", "*"), "×": ("o", "*"),
    "✕": ("o", "*"), "⋅": ("o", "*"), "·": ("o", "*"), "∙": ("o", "*"), "∗": ("o", "*"),
    "/": ("o", "/"), "÷": ("o", "/"), "∕": ("o", "/"), "^": ("o", "^"), "**": ("o", "^"),
    "(": ("(", "("), "[": ("(", "["), ")": (")", ")"), "]": (")", "]"),
    "{": ("{", "{"), "}": ("}", "}"), "%": ("%", "%"), "=": ("=", "="), "==": ("=", "="),
    "≈": ("=", "~"), "≃": ("=", "~"), "$": ("$", "$"), "€": ("$", "$"), "£": ("$", "$"),
    "¥": ("$", "$"), "₹": ("$", "$"), "_": ("_", "_"), "°": ("d", "°"), "π": ("c", "pi"),
    "√": ("c", "sqrt"), "...": ("c", "dots"), "…": ("c", "dots"), "∞": ("c", "inf"),
    "'": ("c", "prime"), "|": ("c", "abs"),
    "@": ("c", "at"),  # a custom operator ("a @ b = ..." defined by the problem): not arithmetic
}
FUNCS = {"sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "log", "ln",
          "lg", "exp", "sinh", "cosh", "tanh"}
_CMD = {
    "times": ("o", "*"), "cdot": ("o", "*"), "ast": ("o", "*"), "div": ("o", "/"),
    "frac": ("c", "frac"), "dfrac": ("c", "frac"), "tfrac": ("c", "frac"), "cfrac": ("c", "frac"),
    "sqrt": ("c", "sqrt"), "binom": ("c", "binom"), "dbinom": ("c", "binom"),
    "tbinom": ("c", "binom"), "pi": ("c", "pi"), "circ": ("d", "°"), "degree": ("d", "°"),
    "%": ("%", "%"), "$": ("$", "$"), "{": ("(", "("), "}": (")", ")"),
    "approx": ("=", "~"), "simeq": ("=", "~"), "thickapprox": ("=", "~"), "doteq": ("=", "~"),
    "quad": ("|", "quad"), "qquad": ("|", "quad"), "implies": ("|", "=>"), "Rightarrow": ("|", "=>"),
    "Longrightarrow": ("|", "=>"), "rightarrow": ("|", "->"), "to": ("|", "->"), "iff": ("|", "<=>"),
    "neq": ("|", "!="), "ne": ("|", "!="), "le": ("|", "<="), "leq": ("|", "<="), "ge": ("|", ">="),
    "lvert": ("c", "abs"), "rvert": ("c", "abs"), "vert": ("c", "abs"), "lfloor": ("c", "lfloor"),
    "rfloor": ("c", "rfloor"), "lceil": ("c", "lceil"), "rceil": ("c", "rceil"),
    "geq": ("|", ">="), "lt": ("|", "<"), "gt": ("|", ">"), "equiv": ("|", "=="), "pmod": ("c", "pmod"),
    "bmod": ("c", "mod"), "mod": ("c", "mod"), "pm": ("c", "pm"), "mp": ("c", "pm"),
    "\\": ("|", "\\\\"), "(": ("|", "\\("), ")": ("|", "\\)"), "[": ("|", "\\["),
    "]": ("|", "\\]"), "cr": ("|", "\\\\"), "newline": ("|", "\\\\"),
    "cdots": ("c", "dots"), "ldots": ("c", "dots"), "dots": ("c", "dots"), "vdots": ("c", "dots"),
    "and": ("|", "and"), "text": ("t", ""), "mbox": ("t", ""), "mathrm": ("t", ""),
    "textrm": ("t", ""), "textit": ("t", ""), "operatorname": ("t", ""), "mathsf": ("t", ""),
    "texttt": ("t", ""), "hbox": ("t", ""), "emph": ("t", ""), "textnormal": ("t", ""),
    "textsf": ("t", ""), "unit": ("t", ""),
}
for _f in FUNCS:
    _CMD[_f] = ("c", _f)
# commands that are layout only: dropped entirely (their {} argument becomes a plain group)
_SKIP_CMDS = {"left", "right", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr",
              "biggl", "biggr", "displaystyle", "textstyle", "scriptstyle", "boxed", "mathbf",
              "bf", "mathit", "textbf", "bm", "boldsymbol", "color", "limits", "nolimits", "phantom",
              ",", ";", ":", "!", " ", "", "\n", "enspace", "thinspace", "medspace", "hfill", "strut",
              "cancel", "underbrace", "overbrace", "underline", "fbox", "mathbin", "mathrel"}
_UNIT_SHORT = {"cm", "mm", "km", "kg", "mg", "ml", "ft", "yd", "mi", "lb", "lbs", "oz", "hr", "hrs",
               "mph", "kph", "sq", "pm", "am", "gb", "mb", "kb", "kw", "kwh", "usd"}
KEYWORDS = {"of": "*", "times": "*", "plus": "+", "minus": "-", "divided by": "/",
             "multiplied by": "*"}
# words that make a run of words prose rather than a unit phrase ("pink calla lilies")
_PROSE_WORDS = frozenset(
    "is are was were be been being so and then thus hence therefore which that who gives give "
    "gives get gets got we he she they it its this there these those has have had will would can "
    "could should must if when where since because but or as than equals equal means mean makes "
    "make made let find need needs needed do does did i you our his her their my your now also "
    "not no yes only just what how why left remaining total".split())
_MULTI_KEYWORDS = {"divided by": "divided by", "multiplied by": "multiplied by", "times": "times"}
_WORD_FUNCS = {"mod": ("c", "mod"), "sqrt": ("c", "sqrt"), "pi": ("c", "pi"), "sin": ("c", "sin"),
               "cos": ("c", "cos"), "tan": ("c", "tan"), "log": ("c", "log"), "ln": ("c", "ln"),
               "exp": ("c", "exp")}
_SUPERSCRIPT = {"²": "2", "³": "3", "¹": "1", "⁴": "4"}
_TEXT_SEP = re.compile(r"[,.;:?!]|\b(?:and|so|then|or|thus|which|is|are|we|get|gives|to)\b", re.I)
_ALIGN_CONT = re.compile(r"\s*&\s*=")
_UNIT_POWER = re.compile(r"\^\s*(?:[23]|\{\s*[23]\s*\})")
_TEXT_QTY = re.compile(r"\s*+\$?\s*+[\d.,]+\s*+%?\s*+[A-Za-z]{0,12}\s*$")  # possessive: blanks not re-split

_BASE_SUBSCRIPT = re.compile(r"_(?:(\d{1,2})(?!\d)|\{\s*(\d{1,2})\s*\})")


def base_numeral(digits: str, base: int) -> str | None:
    """The decimal value of ``digits`` written in ``base`` (2 to 10) as ``321_7`` or ``162_{10}`` write it, or
    ``None`` when it is no numeral of that base (a digit not below the base, a decimal point, over 64 digits).

    >>> base_numeral("321", 7), base_numeral("162", 10), base_numeral("19", 8)
    ('162', '162', None)
    """
    if not 2 <= base <= 10 or not digits.isdigit() or len(digits) > 64 or int(max(digits)) >= base:
        return None
    return str(int(digits, base))


# characters that can start or end an expression: used to skip text quickly
END_KINDS = frozenset("n)}%!vxdt")
START_KINDS = frozenset("n({$cvx")


def tokenize(text: str, pos: int, end: int, latex: bool, out: list[Token], bang: bool = False) -> None:
    """Append the tokens of ``text[pos:end]`` to ``out``.  ``latex``: inside math mode (letters
    are variables, newlines are spaces, ``!`` is always factorial).  ``bang``: ``!`` right after
    an operand is a factorial (a lone expression, not prose)."""
    append = out.append
    new = _new
    prev_kind = out[-1][0] if out else ""  # always the kind of the last token in ``out``
    skip = 0  # the end of a unit's exponent read with it (15\text{ cm}^2)
    for m in _TOK_RE.finditer(text, pos, end):
        if skip:
            if m.start() < skip:
                continue
            skip = 0
        g = m.lastindex
        ms, pos = m.span()
        s = m.start(g) if g > 1 else ms
        if latex:
            sp = False
        elif s > ms:
            sp = True
            if "\n" in text[ms:s]:
                append(new(Token, ("|", "\n", ms, s, True)))
                prev_kind = "|"
        else:
            sp = prev_kind == ""
        if g == 2:  # the commonest token: appended here
            raw = m.group(2)
            if "," in raw:
                raw = raw.replace(",", "").replace("\\!", "").replace("{}", "")
            if pos < end and text[pos] == "_":
                based = _BASE_SUBSCRIPT.match(text, pos, end)
                if based is not None:
                    value = base_numeral(raw, int(based.group(1) or based.group(2)))
                    if value is not None:  # 162_{10}, 321_7: the numeral's value, the subscript read with it
                        raw, pos = value, based.end()
                        skip = pos
            append(new(Token, ("n", raw, s, pos, sp)))
            prev_kind = "n"
            continue
        elif g == 12:
            tok = _word_token(m.group(12), s, pos, sp, latex, prev_kind)
        elif g == 13:
            tok = _char_token(m.group(13), text, s, pos, end, sp, latex, bang, prev_kind, out)
        elif g == 11:
            tok = _command_token(m.group(11)[1:], text, s, pos, end, sp)
        elif g == 4:
            tok = _text_token(m, text, s, pos, sp, out)
            if tok is not None and tok[0] == "t" and prev_kind == "n" and pos < end and text[pos] == "^" \
                    and tok[1].isalpha():  # cm^2: a unit
                power = _UNIT_POWER.match(text, pos, end)
                if power:
                    skip = power.end()
        elif g == 7:  # \frac34
            append(new(Token, ("c", "frac" if "frac" in m.group(5) else "binom", s, m.end(5), sp)))
            for gg in (6, 7):
                a, b = m.start(gg), m.end(gg)
                append(new(Token, ("{", "{", a, a, False)))
                append(new(Token, ("n", m.group(gg), a, b, False)))
                append(new(Token, ("}", "}", b, b, False)))
            prev_kind = "}"
            continue
        elif g == 9:  # \sqrt2
            append(new(Token, ("c", "sqrt", s, m.end(8), sp)))
            tok = ("n", m.group(9), m.start(9), pos, False)
        else:  # group 10, or (never) trailing whitespace: no token
            continue
        if tok is None:  # layout, an alignment mark, or a \text{..} whose numbers were read into ``out``
            prev_kind = out[-1][0] if out else ""
            continue
        append(new(Token, tok))
        prev_kind = tok[0]


def _word_token(w: str, s: int, pos: int, sp: bool, latex: bool, prev_kind: str) -> tuple:
    """A run of letters (``x``, ``cm``, ``pink calla lilies``): a variable, a keyword, a unit, a function name or
    a prose boundary."""
    lw = w.lower()
    if " " in w:
        # a run of words: in prose a unit phrase ("pink calla lilies") or a boundary
        if latex:
            return ("v", w, s, pos, sp)
        if lw in _MULTI_KEYWORDS:
            return ("w", _MULTI_KEYWORDS[lw], s, pos, sp)
        parts = lw.split()
        if len(parts) > 3 or not _PROSE_WORDS.isdisjoint(parts):
            return ("|", lw, s, pos, sp)  # prose, not a unit phrase
        return ("w", lw, s, pos, sp)
    if lw in _WORD_FUNCS and (latex or len(w) > 1):
        k, v = _WORD_FUNCS[lw]
        return (k, v, s, pos, sp)
    if w == "x" or w == "X":
        return ("x", "x", s, pos, sp)
    if latex or len(w) == 1:
        return ("v", w, s, pos, sp)
    if not sp and prev_kind == "n" and lw not in _UNIT_SHORT:
        return ("v", w, s, pos, sp)  # 2xy: juxtaposed letters are variables
    if len(w) == 2 and lw not in _UNIT_SHORT and lw not in KEYWORDS and lw != "by":
        return ("|", lw, s, pos, sp)  # short English word: a boundary
    return ("w", lw, s, pos, sp)


def _char_token(ch: str, text: str, s: int, pos: int, end: int, sp: bool, latex: bool, bang: bool,
                prev_kind: str, out: list[Token]) -> tuple | None:
    """One character (an operator, a bracket, ``²``, ``–``, ``!``, ``&``, punctuation); None for an alignment
    ``&`` next to ``=``. A superscript digit appends its ``^`` to ``out`` and returns the digit."""
    kv = _CHAR.get(ch)
    if kv is not None:
        return (kv[0], kv[1], s, pos, sp)
    if ch in _SUPERSCRIPT:
        out.append(_new(Token, ("o", "^", s, pos, sp)))
        return ("n", _SUPERSCRIPT[ch], s, pos, False)
    if ch == "–":
        # en dash: a minus between spaces ("22 – 7"), else a range or a dash ("5–7")
        if sp and pos < end and text[pos] in " \t":
            return ("o", "-", s, pos, sp)
        return ("|", ch, s, pos, sp)
    if ch == "!":
        return ("!", "!", s, pos, sp) if _is_factorial(text, pos, end, sp, latex, bang, prev_kind) \
            else ("|", "!", s, pos, sp)
    if ch == "&":
        # alignment: &= or =& are just '='; otherwise a column separator (boundary)
        j = pos
        while j < end and text[j] in " \t":
            j += 1
        if (j < end and text[j] == "=") or prev_kind == "=":
            return None
        return ("|", "&", s, pos, sp)
    return ("|", ch, s, pos, sp)


def _is_factorial(text: str, pos: int, end: int, sp: bool, latex: bool, bang: bool, prev_kind: str) -> bool:
    """``!`` is a factorial in math mode, or right after an operand when an operand or an operator follows."""
    if latex or (bang and not sp):
        return True
    j = pos
    while j < end and text[j] == " ":
        j += 1
    nxt = text[j] if j < end else ""
    return bool((not sp and prev_kind in "n)}" and nxt and nxt in "=+-*/)^×÷!,<>≈") or nxt.isdigit() or nxt == "(")


def _command_token(name: str, text: str, s: int, pos: int, end: int, sp: bool) -> tuple | None:
    """A backslash command (``name`` without its backslash); None for layout only (``\\left``, ``\\,``) and for a
    line break that continues an aligned chain (``a &= b \\\\ &= c``)."""
    if name in _SKIP_CMDS:
        return None  # layout only
    if name == "\\" and _ALIGN_CONT.match(text, pos, end):
        return None  # "a &= b \\ &= c": the chain goes on
    kv = _CMD.get(name)
    if kv is None:
        if name.startswith(("begin", "end")) and "{" in name:
            return ("|", name, s, pos, sp)  # \begin{align}: a boundary
        return ("c", name, s, pos, sp)  # unknown command: not numeric
    if kv[0] == "t":  # \text without a braced argument
        return ("|", name, s, pos, sp)
    return (kv[0], kv[1], s, pos, sp)


def _text_token(m: re.Match, text: str, s: int, pos: int, sp: bool, out: list[Token]) -> tuple | None:
    """``\\text{..}`` and its kin (``m.group(3)`` the command, ``m.group(4)`` the content): a label, a keyword, a
    unit or a boundary; None when empty, or when it holds a quantity (``\\text{20 minutes}``), whose tokens are
    then read as plain text into ``out``."""
    name, content = m.group(3), m.group(4)
    if any(ch.isdigit() for ch in content):
        if not _TEXT_QTY.match(content):  # \text{Ways to choose 4 students}
            return ("c", "text", s, pos, sp)
        tokenize(text, m.start(4), m.end(4), False, out)  # \text{20 minutes}: read its numbers as plain text
        return None
    c = content.strip().replace("\\ ", " ")
    if not c:
        return None
    lc = c.lower()
    if name == "operatorname" and c in FUNCS:
        return ("c", c, s, pos, sp)
    if lc in KEYWORDS:  # \text{ of }
        return ("w", lc, s, pos, sp)
    if _TEXT_SEP.search(c) or c.count(" ") >= 3:
        return ("|", c, s, pos, sp)
    return ("t", c, s, pos, sp)
