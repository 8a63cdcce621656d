r"""Finding the equations a step states: annotations ``<<a=b>>``, LaTeX math and prose, each side read or refused.

The side-boundary heuristics (where a side starts and stops, which unit words it keeps, when it is a description
rather than a calculation) are documented in the package docstring, section "Extraction".

>>> [(e.sides, e.source) for e in extract_equations("She sells 16 - 3 - 4 = 9 eggs.")]
[(['16 - 3 - 4', '9'], 'plain')]
>>> [e.sides for e in extract_equations(r"This gives \(3 \times 4 = 12\) and <<12/4=3>>3.")]
[['12/4', '3'], ['3 \\times 4', '12']]
>>> eq = extract_equations("4 students drank 1.5 quarts = 4 * 1.5 = 6")[0]
>>> eq.sides, eq.values
(['1.5', '4 * 1.5', '6'], [None, Value(6), Value(6)])
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from .budget import Budget, MAX_DELIMITERS, MAX_RELATIONS, MAX_TEXT_CHARS
from .clock_times import CLOCK_TIME, read_clock_times, time_of_day
from .errors import internal_error
from .parser import eval_tokens, numeral_value
from .sides import lone_decimals
from .tokens import END_KINDS, FUNCS, KEYWORDS, START_KINDS, Token, tokenize
from .values import Value

__all__ = ["CLOCK_TIME", "Equation", "extract_equations", "read_clock_times", "read_connectives", "time_of_day",
           "tokenize_windows"]

_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Equation:
    """An equation chain ``A = B = C`` stated in a step.

    ``sides``: raw text of each side; ``values``: each side's value (None: not numeric);
    ``span``: character span in the step; ``source``: "annotation" | "latex" | "plain";
    ``relations``: the relation between each adjacent pair ("=" or "≈");
    ``approximate``: any relation is ``≈``/``\\approx``.
    """

    sides: list
    values: list
    span: tuple
    source: str
    relations: tuple = ()
    approximate: bool = False
    # internal: for each side, (its tokens, its tokens with unit words) for check_equation; None for an annotation side
    # whose tokens are those of its text alone (a numeral or "a op b": check_equation tokenizes it if it needs them)
    _toks: tuple = field(default=(), repr=False, compare=False)


# joinability of adjacent tokens (a, b) in text order within one side of an equation
def _joinable(a: Token, b: Token) -> bool:
    ka = a[0]
    kb = b[0]
    if ka == "|" or kb == "|" or ka == "#" or kb == "#":
        return False
    if kb == "(" and b[4] and ka in "n)}%!":
        return False
    if kb == "w":
        wb = b[1]
        if wb in KEYWORDS:
            return ka in END_KINDS and ka != "t"
        if ka == "w":
            return a[1] == "per" or wb == "per"
        # a unit word: after a number (or a per-unit slash)
        return ka in "n%)}" or (ka == "o" and a[1] == "/")
    if ka == "w":
        wa = a[1]
        if wa in KEYWORDS:
            return kb in START_KINDS or kb == "o" and b[1] == "-"
        # a unit word continues only into an operator/relation
        return kb in "o=)}%" or kb == "t"
    if kb == "n":
        if ka == "!":
            return not b[4]  # 5!3!
        if ka == "n" or ka == "%" or ka == ")" or ka == "d":
            return False
        if ka == "}" or ka == "t":
            return False
        if ka == "v":
            return not b[4]
        return True
    if ka == "v" or kb == "v":
        if ka == "v" and kb == "v":
            return not b[4]
        if ka == "v":
            return kb in "o=)}(_{!c" and (kb not in "({c" or not b[4]) or kb == "o"
        # kb == 'v'
        return ka in "o=({c$_x" or (ka in "n)}" and not b[4])
    if kb == "$":
        return ka in "o=({x" or (ka == "w" and a[1] in KEYWORDS)
    if ka == "$":
        return kb in "n({c" or (kb == "o" and b[1] == "-")  # "$-356": a negative amount
    if kb == "t":
        return ka in "n%)}d" or (ka == "o" and a[1] == "/") or ka == "t"
    if ka == "t":
        return kb in "o=)}t"
    return True


def _walk_back(toks: list[Token], e: int, lo: int) -> int:
    """Start index of the side that ends at token e-1 (side = toks[start:e])."""
    j = e - 1
    if j < lo or not _joinable(toks[j], toks[e]):
        return e
    depth = 0
    while j >= lo:
        k = toks[j][0]
        if k == ")" or k == "}":
            depth += 1
        elif k == "(" or k == "{":
            depth -= 1
            if depth < 0:
                return j + 1
        if j == lo or not _joinable(toks[j - 1], toks[j]) or toks[j - 1][0] == "=":
            return j
        j -= 1
    return lo


def _walk_fwd(toks: list[Token], e: int, hi: int) -> int:
    """End index (exclusive) of the side that starts at token e+1."""
    j = e + 1
    if j >= hi or not _joinable(toks[e], toks[j]):
        return e + 1
    depth = 0
    while j < hi:
        k = toks[j][0]
        if k == "(" or k == "{":
            depth += 1
        elif k == ")" or k == "}":
            depth -= 1
            if depth < 0:
                return j
        if j + 1 >= hi or toks[j + 1][0] == "=" or not _joinable(toks[j], toks[j + 1]):
            return j + 1
        j += 1
    return hi


_LEAD_TRIM = frozenset("wt)}o%!=dx")
_TRAIL_TRIM = frozenset("wt({o$=_c")
_PARTIAL_KINDS = frozenset("o=x_")
_ARG_CMDS = frozenset({"frac", "sqrt", "binom", "mod"} | FUNCS)


def _trim(toks: list[Token], a: int, b: int) -> tuple[int, int, bool]:
    """Drop leading/trailing tokens that cannot begin/end an expression (units, operators).

    Returns (a, b, partial): ``partial`` when an operator had to be dropped, i.e. the written
    expression extends into words we cannot read ("200 pink lilies / 5") - such a side is
    not evaluated (a false alarm is worse than a missed check)."""
    partial = False
    worded = False
    while a < b:
        t = toks[a]
        k = t[0]
        if k == "x" and (a + 1 >= b or toks[a + 1][0] not in "n($c{"):
            break  # "x = 5": a variable, not "times"
        if k in _LEAD_TRIM and not (k == "o" and (t[1] == "-" or t[1] == "+") and not worded):
            if k in _PARTIAL_KINDS or k == ")" or k == "}" or (k == "w" and t[1] in KEYWORDS):
                partial = True
            elif k == "w" or k == "t":
                worded = True  # "\text{Chenny's Age} - 4": the words are part of the side
            a += 1
        else:
            break
    while b > a:
        t = toks[b - 1]
        k = t[0]
        if k in _TRAIL_TRIM and not (k == "c" and t[1] not in _ARG_CMDS):
            if k in _PARTIAL_KINDS or k == "(" or k == "{" or k == "c":
                partial = True
            b -= 1
        else:
            break
    return a, b, partial


_WORDY = frozenset("wv")

_STATEMENT_OPENERS = frozenset(("so", "thus", "hence", "therefore", "since", "because", "then", "know", "get",
                                "gives", "obtain", "yields"))
"""Words after which a bare number (no unit word) opens a statement rather than ending a description:
"So 24 = 6 * 4", "since 45 = 15 * 3", "we know 12 = 3 * 4" (where "drank 1.5 quarts = 4 * 1.5" and "so 4 boxes = 4 *
6" describe a quantity). "we have" too, but not a bare "have" ("boxes have 6 = 24 pencils" describes). Such a number
is read only where the next side equals it exactly: the reading adds verified support and refutes nothing ("So 25 =
6 * 4" stays unchecked, as every number after prose was)."""


def _opens_statement(toks: list[Token], j: int) -> bool:
    """Whether the word token ``toks[j]`` right before a lone number is a :data:`_STATEMENT_OPENERS` word (or "we
    have"), so that the number is the left side of the equation that follows."""
    words = toks[j][1].lower().split()  # a "|" token holds a run of prose words ("we know")
    if not words:
        return False
    if words[-1] in _STATEMENT_OPENERS:
        return True
    before = words[-2] if len(words) > 1 else (toks[j - 1][1].lower().rsplit(" ", 1)[-1] if j > 0 else "")
    return words[-1] == "have" and before == "we"


def _chains(text: str, toks: list[Token], source: str, out: list, plain_text: str | None = None,
            budget: Budget | None = None, annots: tuple | None = None) -> None:
    """Append to ``out`` each equation chain of ``toks``; ``annots``: ``(annotations, their starts)`` when an
    equation that restates one of them is to be dropped (:func:`_restates`), before it is built."""
    n = len(toks)
    src = plain_text if plain_text is not None else text
    eq_idx = [j for j in range(n) if toks[j][0] == "="]
    if not eq_idx:
        return
    done = -1
    for e in eq_idx:
        if e <= done:
            continue
        sides, done = _chain_sides(toks, e, n)
        clean = _trimmed_sides(toks, sides, n, source)
        if len(clean) < 2:
            continue
        if budget is not None:
            budget.sides -= len(clean)
            if budget.sides < 0:
                return
        rel_list = _relations(toks, clean)
        vals, texts, side_toks = _read_sides(toks, clean, source, src, plain_text is not None)
        if vals[-1] is None and vals[-2] is not None and clean[-1][2]:
            split = _split_result(toks, clean[-1], src, vals[-2])
            if split is not None:
                vals[-1], texts[-1] = split
        span = (toks[clean[0][0]][2], toks[clean[-1][1] - 1][3])
        if annots is not None and _restates(annots[0], annots[1], span, vals):
            continue
        out.append(Equation(texts, vals, span, source, tuple(rel_list), "≈" in rel_list, tuple(side_toks)))


_SPLIT_BLANKS = frozenset(" \xa0\u202f\u2009")


def _split_result(toks: list[Token], side: tuple, src: str, other: Value) -> tuple[Value, str] | None:
    """A last side that is a whole number with a digit group after one blank (``= 1 01 dimes``), read as its first
    number, where *every* reading of it is false: the number alone and the digits joined (a thousands separator,
    ``1 000``) both differ from the side before, ``other``. The side is then no longer unread: the equation is false
    under either reading. ``None`` (unread, as before) when a reading holds, when the group goes on into an
    expression (``1 1/2``, ``12 5-minute intervals``) or is not plain digits.

    >>> [[v.exact if v else None for v in e.values] for e in extract_equations("She has 10/.10 = 1 01 dimes.")]
    [[Fraction(100, 1), Fraction(1, 1)]]
    >>> [[v.exact if v else None for v in e.values] for e in extract_equations("So 2 * 500 = 1 000 dimes.")]
    [[Fraction(1000, 1), None]]
    """
    a2, b2, _partial, _a, b = side
    if b2 - a2 != 1 or b >= len(toks):
        return None
    first, group = toks[a2], toks[b]
    if first[0] != "n" or group[0] != "n" or not first[1].isdigit() or not group[1].isdigit():
        return None
    if group[2] - first[3] != 1 or src[first[3]] not in _SPLIT_BLANKS:
        return None
    if b + 1 < len(toks) and toks[b + 1][0] not in "w|":
        return None  # the group goes on: "1 1/2", "3 2-week intervals", "1 01 + 2"
    if not other.is_exact:
        return None
    readings = (int(first[1]), int(first[1] + group[1]))
    if any(other.exact == r for r in readings):
        return None
    return eval_tokens([first]), src[first[2]:group[3]]


def _chain_sides(toks: list[Token], e: int, n: int) -> tuple[list[tuple[int, int]], int]:
    """The sides ``(start, end)`` of the chain ``A = B = ...`` through the ``=`` at ``e``, and the index of its last
    ``=``."""
    start = _walk_back(toks, e, 0)
    sides = []
    if start < e:
        sides.append((start, e))
    while True:
        end = _walk_fwd(toks, e, n)
        if end > e + 1:
            sides.append((e + 1, end))
        if end < n and toks[end][0] == "=":
            e = end
            continue
        return sides, e


def _trimmed_sides(toks: list[Token], sides: list[tuple[int, int]], n: int, source: str) -> list[tuple]:
    """Each side trimmed (:func:`_trim`) as ``(start, end, partial, raw start, raw end)``, empty ones dropped;
    ``partial`` also when the first side's expression runs on to the left or the last one's to the right."""
    clean = []
    last = len(sides) - 1
    for idx, (a, b) in enumerate(sides):
        a2, b2, partial = _trim(toks, a, b)
        if a2 >= b2:
            continue
        if idx == 0 and a > 0 and _runs_on_left(toks, a, a2):
            partial = True
        if idx == last and b < n:
            nk = toks[b][0]
            if nk in "n({$#" and not (nk == "$" and toks[b2 - 1][0] == "$") and \
                    not (nk == "(" and toks[b][4] and source != "latex"):
                partial = True
        clean.append((a2, b2, partial, a, b))
    return clean


def _runs_on_left(toks: list[Token], a: int, a2: int) -> bool:
    """Whether the expression of the side starting at ``a`` (trimmed to ``a2``) runs on to the left
    ("30/100%1000", "3 1/2", "$350 000", "50 students - 10 baking - 5 = 35")."""
    pk = toks[a - 1][0]
    if pk in "n%!)}d#" or (pk == "$" and toks[a2][0] == "n"):
        return True
    if pk in "wvt" or (pk == "|" and toks[a - 1][1][:1].isalpha()):
        if toks[a2][0] == "o":  # "50 students - 10 baking - 5 = 35"
            return True
        # "25 classmates + his 1 teacher + 1 = 27"
        j = a - 1
        while j > 0 and a - j <= 3 and toks[j][0] in "wv":
            j -= 1
        kj = toks[j][0]
        return kj == "o" or (kj == "x" and j > 0 and toks[j - 1][0] in END_KINDS)
    return False


def _relations(toks: list[Token], clean: list[tuple]) -> list[str]:
    """The relation between each two consecutive sides: ``≈`` when a ``~`` stands between them, else ``=``."""
    rel_list = []
    for j in range(len(clean) - 1):
        approx = False
        for q in range(clean[j][1], clean[j + 1][0]):
            if toks[q][0] == "=" and toks[q][1] == "~":
                approx = True
        rel_list.append("≈" if approx else "=")
    return rel_list


def _read_sides(toks: list[Token], clean: list[tuple], source: str, src: str,
                plain: bool) -> tuple[list, list[str], list[tuple]]:
    """Each side's value (None when partial or not evaluable), text (its blanks collapsed in ``plain`` text) and
    ``(trimmed tokens, raw tokens)``."""
    vals = []
    texts = []
    side_toks = []
    opened = False
    for idx, (a, b, partial, orig_a, orig_b) in enumerate(clean):
        st = toks[a:b]
        full = toks[orig_a:orig_b]
        side_toks.append((st, full))
        r = None if partial else eval_tokens(st)
        if r.__class__ is Value:
            if idx == 0 and source == "plain" and orig_a > 0:
                # "4 students drank 1.5 quarts = 4 * 1.5": a lone number right after prose
                # is a description, not the left side of a calculation
                pt = toks[orig_a - 1]
                if (pt[0] in _WORDY or (pt[0] == "|" and pt[1][:1].isalpha())) and \
                        lone_decimals(st) >= 0:  # side_meta(st, full).dec, the one field read here
                    opened = len(full) == len(st) and _opens_statement(toks, orig_a - 1)
                    if not opened:
                        r = None
            vals.append(r if r.__class__ is Value else None)
        else:
            vals.append(None)
        raw = src[toks[a][2]:toks[b - 1][3]]
        if plain and "  " in raw:
            raw = _WS.sub(" ", raw)
        texts.append(raw)
    if opened and not (len(vals) > 1 and vals[1] is not None and vals[0].is_exact and vals[1].is_exact
                       and vals[0].exact == vals[1].exact):
        vals[0] = None  # "So 24 = 6 * 4" is read where it verifies; read for support only, it refutes nothing
    return vals, texts, side_toks


def _restates(annots: list, starts: list, span: tuple, values: list) -> bool:
    """Whether a plain equation (its span and values) restates an adjacent ``<<..>>`` annotation with the same values
    ("16-3-4 = <<16-3-4=9>>9"): GSM8K writes both, and the annotation is the one kept. ``annots``: (start, end,
    equations) of each annotation in text order, ``starts`` their starts."""
    k = bisect_right(starts, span[1] + 1)
    for a_s, a_e, a_eqs in annots[max(0, k - 3):k]:
        if a_s <= span[1] + 1 and a_e >= span[0] - 1:
            for ae in a_eqs:
                if all(_BARE_SIDE.fullmatch(side) for side in ae.sides):
                    continue  # "40-10=<<30=30>>30": the plain equation carries the computation
                if [v.exact if v else None for v in ae.values] == [v.exact if v else None for v in values] or \
                        _same_values(ae.values, values):
                    return True
    return False


_ANNOT_RE = re.compile(r"<<([^<>\n]{0,400}?)>>")
_ENVS = r"(?:align|aligned|equation|gather|gathered|eqnarray|multline|split|flalign|alignat)\*?"
_MATH_DELIM = re.compile(
    r"\\\$|\$\$|\$|\\\[|\\\]|\\\(|\\\)|\\begin\{" + _ENVS + r"\}(?:\{\d+\})?|\\end\{" + _ENVS + r"\}"
)
_PROSE = re.compile(r"[A-Za-z]{3,}\s+[A-Za-z]{3,}")
_EQ_HINT = re.compile(r"=|≈|≃|\\approx|\\simeq|<<")

# A result written with an arrow or a verb instead of "=" ("16 - 3 - 4 → 10", "4 * 5 makes 20", "9 \\to 3"): the
# step still claims that value, so it is read as the equation it claims. Only a numeral expression with an operator
# on the left (nothing before it that would make it part of a longer side: "9 \\cdot 6 + 0 \\Rightarrow 54"; after
# "=" it extends the chain: "&= 12 + 3 \\cdot 4 \\to 24") and a lone number on the right (not
# "\\Rightarrow 54 \\equiv", nor a comparison: "which is 20 more than 4"). "is equal to", "for a total of" and
# "(,) hence / so / thus / which is / which equals / which gives (us) / which makes / so that's / that's / i.e." too,
# but "is equal to" not after a proper fraction alone with an amount of 1 or more: "Since 4/7 is equal to $24" states
# a correspondence (4 GSM8K gold solutions), not a result. Not "is" or ":" (a label: "by 2/3: 6 gallons", "8:00").
# On GSM8K train and MATH-500 gold this reads 7 true "equals" and no false relation; the later forms change 2 gold
# texts (both true: "for a total of 16 dozen", "3 * $2, which equals $6") and no ProcessBench text.
_CONNECTIVE_HINT = re.compile(r"→|->|⟶|=>|⇒|⟹|↦|\\to\b|\\(?:long|Long)?(?:rightarrow|Rightarrow)\b|\\implies\b|"
                              r"\\mapsto\b|:=|\b(?:equals|makes|gives|giving|yields|yielding|comes to|comes out to|"
                              r"works out to|leads to|results in|resulting in|becomes|is equal to|for a total of)\b|"
                              r",?\s*(?:hence|so|thus|i\.e\.,?|which is|which equals|which gives(?: us)?|which makes|"
                              r"so that's|that's|that is)(?=\s)")
# The same test as _CONNECTIVE_HINT.search (",?\s*" may match empty, so a text holds a match iff it holds one without
# it), linear on a long blank run: with it every start in the run rescanned the run (0.22 s on 4,000 blanks)
_CONNECTIVE_SCAN = re.compile(_CONNECTIVE_HINT.pattern.replace(r",?\s*(?:hence", "(?:hence"))
if _CONNECTIVE_SCAN.pattern == _CONNECTIVE_HINT.pattern:  # the branch was rewritten: rewrite this too
    raise ImportError("extraction._CONNECTIVE_SCAN no longer drops ',?\\s*' before '(?:hence': update it")
_NUMERAL = r"(?:\d+(?:\.\d+)?|\.\d+)"
_FRAC = r"\\[dt]?frac\{\d{1,9}\}\{\d{1,9}\}"
_ATOM = (r"(?:(?:\\?\$)?" + _NUMERAL + r"(?>\s*+/?\s*+[A-Za-z]{2,12}){0,3}|\([\d\s.+\-*/×÷^$]{1,80}\)|" + _FRAC +
         r"|\\sqrt\{[\d\s.+\-*/^]{1,40}\})")  # "13 items", "$900/day", "(5-2)", "\frac{8}{17}", "\sqrt{3^2+4^2}"
_OPERATOR = r"(?:\s*(?:[-+*/×÷^]|\\cdot|\\times|\\div)\s*|\s+x\s+|\s*(?=\())"  # "(?=\()": 180(5-2)
_LONE_RESULT = (r"(?:" + _NUMERAL + "|" + _FRAC + r")(?![\d.]*[A-Za-z_(])"  # a number that no expression continues
                r"(?![\d.]*\s*(?:[=+\-*/×÷^<>≈≡%]|\\(?:equiv|cdot|times|div|pmod|le|ge|neq|approx)\b))"
                # nor a comparison: "18 + 6, which is 20 more than 4" (with a unit word between: "20 items fewer")
                r"(?![\d.]*(?:\s+[A-Za-z]{2,12})?\s+(?:more|less|fewer|greater|smaller|larger|times|than|percent)\b)")
_CONNECTIVE_RESULT = re.compile(
    r"(?<![\w.,\\])" + _ATOM + r"(?:" + _OPERATOR + _ATOM + r"){1,64}"  # bounded: linear time on "1 + 1 + ... equals"
    r"\s*+\$?\s*+&?\s*+(" + _CONNECTIVE_HINT.pattern + r")\s*(?:\\?\$)?" + _LONE_RESULT)  # possessive: a blank run is
    # not re-split among the \s* before the connective (polynomial: "1+2" + 500 spaces + " so x" took 99 s)
_RANGE = re.compile(r"\$?(\d{1,9})-(\d{1,9})")
_SHARE = re.compile(r"\$?(\d{1,9})\s*/\s*(\d{1,9})\$?((?:\s+[A-Za-z]{2,12}){1,3})?")  # a proper fraction (of something)


def _amount(result: str) -> float:
    """The number a connective's result states ("$24" -> 24.0; a ``\\frac`` -> its value), inf when unread."""
    m = re.search(r"\\[dt]?frac\{(\d{1,9})\}\{(\d{1,9})\}|\d*\.?\d+", result)
    if m is None:
        return float("inf")
    if m.group(1) is not None:
        return int(m.group(1)) / int(m.group(2)) if int(m.group(2)) else float("inf")
    return float(m.group())
_CONTINUED = re.compile(r"(?:[+\-*/×÷^(≈<>]|\\[A-Za-z]+|\b(?:plus|minus|times|by|over))$")
_CHAINED_ARROW = re.compile(  # "= \frac{5}{3} → \frac{601}{360}": an equation chain continued with an arrow
    r"=\s*(?:" + _NUMERAL + "|" + _FRAC + r")\s*(→|⟶|->|\\to\b|\\(?:long)?rightarrow\b)\s*" + _LONE_RESULT)


# Operator words between numbers, in a result read as above: "$1 minus $.2 equals .8", "96 divided by .8 equals
# 120". Only numerals (with "$" and up to two unit words) joined by plus / minus / times / multiplied by / divided
# by alone (not "2 plus 2 plus 1/3 equals 7": a sum only partly in numerals), and a lone number after the connective;
# the words are then read as the symbols. GSM8K train: 16 lines read, 15 true, 1 a gold slip (99.1 + ... = 692,
# the sum is 693); no MATH-500 or ProcessBench text changes.
_OP_WORDS = {"plus": "+", "minus": "-", "times": "*", "multiplied by": "*", "divided by": "/"}
_WORD_OP = r"\s+(plus|minus|times|multiplied\s+by|divided\s+by)\s+"
_WORD_OP_HINT = re.compile(r"\b(?:plus|minus|times|multiplied\s+by|divided\s+by)\s+\$?\.?\d")
_WORD_ATOM = (r"(?:\$?" + _NUMERAL + r"(?>\s*+/?\s*+(?!(?:plus|minus|times|multiplied|divided|by|equals|makes|gives|"
              r"is|yields|comes|so|hence|thus|which|and|or|of)\b)[A-Za-z]{2,12}){0,2})")
_WORD_RESULT = re.compile(
    r"(?<![\w.,\\])(?<!plus\s)(?<!minus\s)(?<!times\s)(?<!by\s)\$?(?<!plus\s\$)(?<!minus\s\$)(?<!times\s\$)(?<!by\s\$)"
    + _WORD_ATOM + r"(?:" + _WORD_OP.replace("(", "(?:") + _WORD_ATOM
    + r")+\s*+(?P<conn>" + _CONNECTIVE_HINT.pattern + r")\s*\$?" + _LONE_RESULT)
_WORD_OP_RE = re.compile(_WORD_OP)


def _word_results(text: str) -> list[tuple[int, int, str]]:
    """The spans of a result written with operator words (see above), each with the symbol it is read as."""
    out = []
    for m in _WORD_RESULT.finditer(text):
        if _CONTINUED.search(text[:m.start()].rstrip()):
            continue
        ops = [(w.start(1), w.end(1), _OP_WORDS[" ".join(w.group(1).split())])
               for w in _WORD_OP_RE.finditer(text, m.start(), m.start("conn"))]
        if ops:
            out += ops + [(*m.span("conn"), "=")]
    return out


# What every reading above needs, as one linear prefilter: a connective (each of _CONNECTIVE_HINT's forms, without its
# optional leading ", " and its word boundaries, so that each alternative starts with a literal character and the
# regex engine skips to candidates in C) followed, after spaces and an optional "$", by the numeral or \frac that
# _LONE_RESULT starts with. _CONNECTIVE_RESULT, _CHAINED_ARROW and _WORD_RESULT each hold that sequence, so a text
# without it has none to read (tests/rewards/test_fast_paths.py compares with and without it). Most steps have none:
# the full hint alone cost ~8 us a step.
_RESULT_AFTER_CONNECTIVE = re.compile(
    r"(?:→|->|⟶|=>|⇒|⟹|↦|\\to|\\(?:long|Long)?(?:rightarrow|Rightarrow)|\\implies|\\mapsto|:=|"
    r"equals|makes|gives|giving|yields|yielding|comes to|comes out to|works out to|leads to|results in|resulting in|"
    r"becomes|is equal to|for a total of|hence|so|thus|i\.e\.,?|which is|which equals|which gives(?: us)?|which makes|"
    r"that's|that is)\s*(?:\\?\$)?(?:\.?\d|\\[dt]?frac)")


def read_connectives(text: str) -> str:
    """``text`` with each result written with an arrow or a verb (``16 - 3 - 4 → 10``) turned into ``=``, padded
    with spaces so that every offset stays where it was; ``text`` itself when there is none.

    >>> read_connectives("She sells 16 - 3 - 4 → 10 eggs.")
    'She sells 16 - 3 - 4 = 10 eggs.'
    >>> read_connectives("Since 4/7 is equal to $24, 1/7 is $6.")   # a correspondence, not a result
    'Since 4/7 is equal to $24, 1/7 is $6.'
    >>> read_connectives(r"3\\cdot\\$6, which is \\$19")              # LaTeX's escaped dollar
    '3\\\\cdot\\\\$6=          \\\\$19'
    """
    if _RESULT_AFTER_CONNECTIVE.search(text) is None or _CONNECTIVE_SCAN.search(text) is None:
        return text
    spans = []  # the connectives to read as "="
    for m in _CONNECTIVE_RESULT.finditer(text):
        if _CONTINUED.search(text[:m.start()].rstrip()):
            continue  # part of a longer side ("9 \\cdot 6 + 0 \\Rightarrow 54"), or words ("2 plus 1/3 equals 7")
        left = text[m.start():m.start(1)].strip()
        worded = m.group(1).lstrip(", ")[:1].isalpha()  # a verb or a phrase, not an arrow
        span = _RANGE.fullmatch(left) if worded else None
        if span and int(span.group(1)) < int(span.group(2)):
            continue  # an inclusive range, not a difference: "numbered 1-40, so 40 in all" ("100-72 equals 28" is)
        share = _SHARE.fullmatch(left) if worded else None
        if share and int(share.group(1)) < int(share.group(2)) and (
                share.group(3) or _amount(text[m.end(1):m.end()]) >= 1):
            continue  # a correspondence: "Since 4/7 is equal to $24" (4/7 of the money), "1/4 of them, which is
            # 10", not 4/7 = 24; a proper fraction alone "is equal to 0.5" is arithmetic (a share's value is below 1)
        spans.append(m.span(1))
    spans += [m.span(1) for m in _CHAINED_ARROW.finditer(text)]
    words = _word_results(text) if _WORD_OP_HINT.search(text) else []
    if not spans and not words:
        return text
    chars = list(text)
    for a, b, symbol in [(a, b, "=") for a, b in spans] + words:
        chars[a:b] = symbol + " " * (b - a - 1)  # same length: every offset stays where it was
    return "".join(chars)


# Clock arithmetic ("7:50 + 30 minutes = 8:20 a.m.", "8:20 a.m. - 8:00 a.m. = 20 minutes", "5:51+0:16 = 5:67 AM =
# 6:07 AM"): the colon would otherwise split each time into two numbers ("50 + 30 = 8", a false slip). A chain of
# times and durations joined by + and - with "=" is read in minutes: a time of day as (h mod 12)*60 + mm (+720 after
# p.m.; also after + or - when marked a.m./p.m.; 12:xx unmarked as midnight, else as noon; 13:00 and on as 24-hour
# time), a duration h:mm after + or - as h*60 + mm, "N hours" as 60N, "N minutes" (or a bare N) as N. A chain that
# holds exactly is written back in minutes, same length ("470  + 30         = 500      "); any other (past midnight
# or noon unmarked, a slip, a form not read) has its "=" blanked: left unchecked, never a false slip.
_SPLIT_EQUATION = re.compile(r"(?<![\\$])\$(\s*=\s*)\$(?!\$)")


def _join_split_math(text: str) -> str:
    """``$200 / 50$ = $5$`` read as one region ``$200 / 50 = 5$`` (the two ``$`` around the ``=`` become spaces, so
    offsets stay): an equation split over two inline regions is still the equation it claims.

    >>> _join_split_math("so $200 / 50$ = $5$ branches")
    'so $200 / 50  =  5$ branches'
    """
    return _SPLIT_EQUATION.sub(r" \1 ", text) if "$" in text and _SPLIT_HINT.search(text) else text


_SPLIT_HINT = re.compile(r"\$\s*=\s*\$")
"""What every match of ``_SPLIT_EQUATION`` holds, as a prefilter that starts with a literal (the regex engine skips to
each "$" in C): ``_SPLIT_EQUATION`` starts with a lookbehind, which it tries at every character of every step."""


def _math_regions(text: str, n: int):
    """Linear scan for LaTeX math regions: list of (start, end) of the *content*."""
    regions = []
    opener = None  # (kind, content_start)
    dollar = None  # content start of a candidate $...$
    for count, m in enumerate(_MATH_DELIM.finditer(text, 0, n)):
        if count >= MAX_DELIMITERS:
            break
        d = m.group()
        if d == "\\$":
            continue
        if opener is not None:
            kind, cs = opener
            if (kind == "$$" and d == "$$") or (kind == "\\[" and d == "\\]") or \
                    (kind == "\\(" and d == "\\)") or (kind == "env" and d.startswith("\\end")):
                regions.append((cs, m.start()))
                opener = None
            continue
        if d == "$":
            if dollar is None:
                dollar = m.end()
            else:
                content = text[dollar:m.start()]
                if content and len(content) <= 500 and "\n" not in content and \
                        not content[0].isspace() and not content[-1].isspace() and \
                        not (_PROSE.search(content) and "\\" not in content) and \
                        not (m.end() < n and text[m.end()].isdigit()):
                    regions.append((dollar, m.start()))
                    dollar = None
                else:
                    dollar = m.end()
            continue
        if d == "$$":
            opener = ("$$", m.end())
        elif d == "\\[":
            opener = ("\\[", m.end())
        elif d == "\\(":
            opener = ("\\(", m.end())
        elif d.startswith("\\begin"):
            opener = ("env", m.end())
        dollar = None
    if opener is not None:  # unclosed: math up to the end
        regions.append((opener[1], n))
    return regions


def extract_equations(text: str) -> list[Equation]:
    """Every equation chain a step states (annotations first, then in text order).

    Plain-text sides stop at words and punctuation ("She sells 16 - 3 - 4 = 9 eggs" -> "16 - 3 -
    4", "9"); a unit word after a number is kept only inside an expression ("5 cm + 3 cm").
    A plain equation that restates an adjacent ``<<..>>`` annotation with the same values is
    dropped (GSM8K writes both).
    """
    try:
        if not isinstance(text, str):
            return []
        n = min(len(text), MAX_TEXT_CHARS)
        text = read_clock_times(_join_split_math(read_connectives(text)))
        if _EQ_HINT.search(text, 0, n) is None:
            return []
        out: list[Equation] = []
        annots: list = []
        budget = Budget()
        if "<<" in text:
            for m in _ANNOT_RE.finditer(text, 0, n):
                if len(annots) >= MAX_RELATIONS:
                    break
                eq = _annotation(text, m, budget)
                if eq is not None:
                    out.append(eq)
                annots.append((m.start(), m.end(), [eq] if eq is not None else []))
            if annots:  # text[:n] with each annotation blanked (they are apart and in order): offsets stay
                pieces, last = [], 0
                for s, e, _ in annots:
                    pieces.append(text[last:s])
                    pieces.append(" " * (e - s))
                    last = e
                pieces.append(text[last:n])
                text_m = "".join(pieces)
            else:
                text_m = text
        else:
            text_m = text
        annot_starts = [a[0] for a in annots]
        regions = _math_regions(text_m, n) if ("$" in text_m or "\\" in text_m) else []
        pos = 0
        segs = []
        for s, e in regions:
            if s > pos:
                segs.append((pos, s, False))
            segs.append((s, e, True))
            pos = e
        if pos < n:
            segs.append((pos, n, False))
        budget.relations = MAX_RELATIONS
        restated = (annots, annot_starts) if annots else None
        for s, e, latex in segs:
            toks = []
            tokenize_windows(text_m, s, e, toks, latex, budget)  # no tokens: no relation in text_m[s:e] (or no budget)
            if not toks:
                continue
            # plain restatements of an annotation ("16-3-4 = <<16-3-4=9>>9") are dropped as they are read
            _chains(text, toks, "latex" if latex else "plain", out, text_m if annots else None, budget,
                    None if latex else restated)
        return out
    except Exception as exc:  # noqa: BLE001 - never raise on model output (unless RAFS_STRICT)
        internal_error("extract_equations", text, exc)
        return []


_BARE_SIDE = re.compile(r"\s*-?[\d,]*\.?\d+\s*")
_WINDOW = 160
_WINDOW_MATH = 400
_MAX_WINDOW = 2000


def _annotation(text: str, m, budget: Budget) -> Equation | None:
    """A GSM8K calculator annotation ``<<16-3-4=9>>``: its sides are exactly the '='-separated
    parts (no side-boundary heuristics needed)."""
    sides, vals, stoks = [], [], []
    pos = m.start(1)
    for part in m.group(1).split("="):
        end = pos + len(part)
        if part.strip():
            simple = _SIMPLE_PART(text, pos, end)
            if simple is None:
                toks: list[Token] = []
                tokenize(text, pos, end, False, toks, True)
                r = eval_tokens(toks) if toks and all(t[0] != "|" for t in toks) else None
                if toks:
                    sides.append(text[toks[0][2]:toks[-1][3]])
                    vals.append(r if r.__class__ is Value else None)
                    stoks.append((toks, toks))
            else:  # "48/2", "24": one match, read by numeral_value as eval_tokens reads its tokens
                left, op, right = simple.group(1, 2, 3)
                sides.append(text[simple.start(1):simple.end(1 if op is None else 3)])
                vals.append(numeral_value(left, op, right))
                stoks.append(None)  # its tokens: check_equation reads them from the side text, if it needs them
        pos = end + 1
    if len(sides) < 2:
        return None
    budget.sides -= len(sides)
    return Equation(sides, vals, (m.start(), m.end()), "annotation", ("=",) * (len(sides) - 1),
                    False, tuple(stoks))


_SIMPLE_PART = re.compile(r"\s*(\d+(?:\.\d+)?|\.\d+)\s*(?:([-+*/])\s*(\d+(?:\.\d+)?|\.\d+)\s*)?").fullmatch
"""An annotation part that is one numeral or ``a op b`` (most of GSM8K's: ``<<48/2=24>>``), read in one match."""
_new = tuple.__new__  # a Token built in C, as the tokenizer builds them


def tokenize_windows(text: str, s: int, e: int, toks: list[Token], latex: bool, budget: Budget) -> None:
    """Tokenize only what can hold an equation: in plain text the line around each relation (a
    newline ends a plain-text side), and only a window around it (a chain of relations extends
    the window, up to ``_MAX_WINDOW`` characters).  A window edge that cuts the text is an edge
    token '#', which makes a side that reaches it unreadable.  ``budget``: the relations and characters
    left for the whole text (:class:`~.budget.Budget`), so that no input costs more than a bounded amount."""
    last_end = s
    prev_cut = False
    half = _WINDOW_MATH if latex else _WINDOW
    search = _EQ_HINT.search
    while budget.relations > 0 and budget.chars > 0:
        m = search(text, last_end, e)
        if m is None:
            return
        budget.relations -= 1
        p = m.start()
        # left edge
        lo = max(last_end, p - half)
        j = -1 if latex else text.rfind("\n", lo, p)
        if j >= 0:
            ws, cut_l = j + 1, False
        elif lo == last_end:
            ws, cut_l = lo, prev_cut
        else:
            k = text.find(" ", lo, p)
            ws, cut_l = (k if k >= 0 else lo), True
        # right edge, extended while the chain goes on
        cap = min(e, p + _MAX_WINDOW)
        hi = min(cap, p + half)
        r_end = m.end()
        steps = 0
        while hi < cap:
            m2 = search(text, r_end, min(cap, hi + half))  # the next relation, if windows overlap
            if m2 is None:
                break
            steps += 1
            if steps > 16:  # a dense run of relations: take the whole capped window
                hi = cap
                r_end = max(r_end, text.rfind("=", r_end, cap))
                break
            r_end = m2.end()
            hi = min(cap, m2.start() + half)
        j = -1 if latex else text.find("\n", p, hi)
        if j >= 0:
            we, cut_r = j, False
        elif hi == e:
            we, cut_r = e, False
        else:
            k = text.rfind(" ", r_end, hi)
            we, cut_r = (k if k > r_end else hi), True
        budget.chars -= we - ws
        toks.append(_new(Token, ("|", "\n", ws, ws, True)))
        if cut_l:
            toks.append(_new(Token, ("#", "", ws, ws, True)))
        tokenize(text, ws, we, latex, toks)
        if cut_r:
            toks.append(_new(Token, ("#", "", we, we, True)))
        last_end = max(we, m.end())
        prev_cut = cut_r


def _same_values(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is None or y is None:
            if x is not y:
                return False
        elif x.approx != y.approx:
            return False
    return True
