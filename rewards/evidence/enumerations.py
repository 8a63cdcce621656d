r"""A count answered by listing what it counts, each listed item checked against the problem's conditions.

"For how many two-digit primes is the sum of the digits equal to 8?" — the solution lists the two-digit numbers
whose digits sum to 8, strikes the composites, and writes "17, 53, and 71 are prime. Hence the answer is 3." No
equation computes 3: the count *is* the list. Here a list is checked and the count it gives reaches the answer:

* **A complete list** (:func:`license_members`). The problem's conditions on the integers it asks about are read
  (:func:`rewards.checks.conditions.problem_conditions`: a multiple of 6, a factor of 14, prime, two-digit, digits
  summing to 8, less than 25, ...) and the set they describe is enumerated over the range the bounds give
  (:func:`~rewards.checks.conditions.condition_sets`; at least one condition beyond the bounds). A step that
  writes a list of integers (``17, 53, and 71``; ``1 \quad 2 \quad 7 \quad 14``) whose items are distinct and are
  *exactly* that set — every item satisfies every condition, and none is missing — is recorded, and so is a list
  that is exactly the set of all the conditions but one (the candidates, before the last condition strikes some).
  A condition the reader misses or reads negated is left out, which makes the described set larger, so the
  faithful list no longer equals it: a misread withholds support, never grants it. Where the problem states an
  inequality in one letter whose integer solutions form one interval (``|x + 4| < 9``, a quadratic;
  :func:`~rewards.checks.conditions.problem_inequality`), a run of consecutive integers each satisfying it and
  the problem's other conditions, whose two neighbours do not, is that set. The items are not made
  *reached*: arithmetic on them (``26 - 17 = 9``, ``9/3 = 3``) derives nothing.
* **The count of it** (:func:`enumerated_count`). In a problem that asks for a count ("how many", "number of"),
  an answer no equation derived is reached when a step at or after such a list states the list's size as the
  count (``a total of 9``, ``There are 7 such numbers``, ``\boxed{3}``) and the size equals the answer. The step
  then produces the answer, uses the listed items and depends on the list's step (which uses the problem's
  numbers of the conditions); the items and candidates the steps from the first list to the count's name are no
  numbers from nowhere.

A second kind of listed count, :func:`bracketed_count`: the distinct values of a problem's expression under the
bracketings the trace computes ("how many values can be obtained by inserting parentheses").

What this does not pay — each pinned in ``tests/rewards/evidence/test_enumerations.py`` as earning no more than
the bare answer: a count stated with no list; a list with a duplicate, a padded list, a list with an item that
fails a condition, a list of true but unrelated numbers (``1, 2, 3, 4``), a list one short; a count whose size
differs from the list's; a list in a problem whose conditions are not read; arithmetic on listed items that lands
on the answer. Nothing here refutes.

What a checked condition is worth on the answer itself: nothing by itself. ``2220 is a multiple of 30 and uses
only the digits 0 and 2`` shows the answer is *a* solution, not that the reasoning derived it nor that it is the
least; a bare answer that satisfies every condition would otherwise earn support. The checker's use is the list
above — where the check applies to every member of a set the trace writes out in full, so the list, not the
answer, is what is verified.

Bounds: lists of at most :data:`~rewards.checks.conditions.MAX_MEMBERS` items; the problem's sets are enumerated
once per trace (:data:`~rewards.checks.conditions.MAX_RANGE` integers at most).
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.conditions import (MAX_MEMBERS, condition_sets, inequality_run, problem_conditions,
                                       problem_inequality)
from rewards.evidence.quantities import value_key

_COUNT_ASKED = re.compile(r"\bhow many\b|\bnumber of\b", re.I)
_STRIP = re.compile(r"\$|\\[()\[\]{}]|\\(?:quad|qquad|,|;|:|!)|\\text\{\s*(?:and|or)\s*\}|~")
_ITEM = re.compile(r"(?<![\w.^_{/\\])-?\d{1,7}(?![\w^/]|\.\d|\s*[(!])")
_SEPARATOR = re.compile(r"\s*(?:,|;)?\s*(?:(?:and|or)\s+)?")
_COUNT_WORDS = {1: ("one", "only one"), 2: ("two",), 3: ("three",), 4: ("four",), 5: ("five",), 6: ("six",),
                7: ("seven",), 8: ("eight",), 9: ("nine",), 10: ("ten",), 11: ("eleven",), 12: ("twelve",)}


def listed_runs(text: str) -> list[tuple[int, ...]]:
    r"""The lists of integers ``text`` writes: runs of at least two integers separated only by commas, ``and``,
    ``or`` or spacing (``17, 53, and 71``; ``$1$, $2$, $7$, and $14$``; ``1 \quad 2 \quad 7``), each in order.

    >>> listed_runs(r"The factors are $1$, $2$, $7$, and $14$; so $14 = 2 \cdot 7$.")
    [(1, 2, 7, 14)]
    >>> listed_runs("Between 3 and 5 there is 4.")
    [(3, 5)]
    """
    flat = _STRIP.sub(" ", text[:20000])
    runs: list[tuple[int, ...]] = []
    current: list[int] = []
    end = -1
    for m in _ITEM.finditer(flat):
        if current and _SEPARATOR.fullmatch(flat[end:m.start()]):
            current.append(int(m[0]))
        else:
            if len(current) >= 2:
                runs.append(tuple(current))
            current = [int(m[0])]
        end = m.end()
    if len(current) >= 2:
        runs.append(tuple(current))
    return [r for r in runs if len(r) <= MAX_MEMBERS]


def _problem_sets(builder) -> tuple:
    """``(the sets the problem's conditions describe, the numbers the problem writes for them, the candidate sets
    (all conditions but one), the problem's one-interval inequality or None, the conditions)``, read once per trace
    and kept on the builder's licences."""
    licences = builder.licences
    if licences.members is None:
        conditions = problem_conditions(licences.problem) if licences.problem else []
        sets = [frozenset(s) for s in condition_sets(conditions) if len(s) >= 2]
        plain = [c for c in conditions if c.kind not in ("lower", "upper", "between")]
        candidates = [frozenset(s) for c in (plain if len(plain) > 1 else ())  # one condition not yet applied
                      for s in condition_sets([x for x in conditions if x is not c]) if len(s) >= 2]
        inequality = problem_inequality(licences.problem) \
            if licences.problem and re.search(r"<|>|\\[lg]e", licences.problem) else None
        named = [n for c in conditions for n in c.named]
        if inequality is not None:
            named.extend(abs(int(a)) for a in inequality[0].atoms() if getattr(a, "is_Integer", False))
        licences.members = (sets, tuple(dict.fromkeys(named)), [s for s in candidates if s not in sets],
                            inequality, conditions)
    return licences.members


_LISTED = re.compile(r"\d\s*(?:\$\s*)?(?:,|\band\b|\\quad)")
"""A number followed by a comma, "and" or ``\\quad``: a step without one lists nothing (compiled once, not looked
up in ``re``'s cache on every step)."""


def license_members(builder, flow, text: str) -> None:
    """A list in the step of ``flow`` that is exactly a set the problem's conditions describe (distinct items, none
    missing, none extra; or all the integers of the problem's inequality) is recorded for :func:`enumerated_count`,
    and the step uses the problem's quantities that state those conditions; a list of the candidates (all
    conditions but one) is recorded as such. Nothing is made reached here."""
    members = builder.licences.members
    if members is not None and not members[0] and members[3] is None:
        return  # the problem describes no set (read at an earlier list): no list of this step is one
    if not _LISTED.search(text):
        return
    sets, named, candidates, inequality, conditions = _problem_sets(builder)
    if not sets and inequality is None:
        return
    for run in listed_runs(text):
        if len(set(run)) == len(run) and frozenset(run) in candidates:  # the candidates, one condition to go
            builder.licences.candidates.append((flow.index, run))
        elif len(set(run)) == len(run) and (frozenset(run) in sets or inequality_run(inequality, run, conditions)):
            flow.used.extend(q for q in dict.fromkeys(Fraction(abs(n)) for n in named)
                             if value_key(q) in builder.pnum_keys and q not in flow.used)
            builder.licences.enumerated.append((flow.index, run))


def _states_count(text: str, count: int) -> bool:
    r"""Whether ``text`` states ``count`` as a count: boxed, or as a number (or its word) followed within a few
    words by what is counted or preceded by "total of", "there are", "answer is"."""
    low = text.lower()
    if re.search(r"\\boxed\{\s*" + str(count) + r"\s*\}", low):
        return True
    words = [re.escape(w) for w in _COUNT_WORDS.get(count, ())]
    number = r"(?<![\d.,])(?:" + "|".join([str(count)] + [r"\b" + w + r"\b" for w in words]) + r")(?![\d.]\d|\d)"
    for m in re.finditer(number, low):
        before, after = low[max(0, m.start() - 30):m.start()], low[m.end():m.end() + 40]
        if re.search(r"total of|there (?:are|is)|answer is|count is|we have|gives us|number of \w+ is|leaves us with|exactly",
                     before) and not re.search(r"[=+\-*/^]\s*$", before):
            return True
        if re.match(r"[\s$\\)}]*(?:such |possible |different |distinct |positive |)(?:\w+[- ])?"
                    r"(?:numbers?|integers?|values?|elements?|primes?|multiples?|factors?|divisors?|solutions?|"
                    r"ways?|pairs?|members?|items?|terms?|choices?|digits?|possibilities)\b", after):
            return True
    return False


def enumerated_count(builder, target: Fraction):
    """``(step, operands, steps it depends on, numbers each step writes that are verified)`` for a count answer
    that is the size of a licensed list (module docstring), or ``None``."""
    enumerated = builder.licences.enumerated
    if not enumerated or target.denominator != 1 or not 2 <= target <= MAX_MEMBERS \
            or not _COUNT_ASKED.search(builder.licences.problem):
        return None
    steps = builder.trace.steps
    for index, run in reversed(enumerated):
        if len(run) != target:
            continue
        for t in range(index, len(steps)):
            if _states_count(steps[t], int(target)):
                items = [Fraction(v) for v in run]
                named = {*items, *(Fraction(v) for k, listed in builder.licences.candidates if k <= t
                                    for v in listed)}  # the candidates, and the items, wherever they are named
                named |= {abs(v) for v in named}
                start = min([index] + [k for k, _ in builder.licences.candidates if k <= t])
                written = {k: set(named) for k in range(start, t + 1)}
                if builder.licences.members[3] is not None:  # an inequality's run: the integers just outside it,
                    bounds = {Fraction(run[0] - 1), Fraction(run[-1] + 1)}  # checked to fail, are its bounds
                    bounds |= {abs(v) for v in bounds}
                    for k in range(0, t + 1):
                        written.setdefault(k, set()).update(bounds)
                written[t].add(target)
                return t, items, {index}, written
    return None


_PHANTOM = re.compile(r"\\[hv]?phantom\{[^{}]{0,20}\}")
_BRACKETS = re.compile(r"\\left|\\right|\\[,;!]|[()\[\]{}\s$&]")
_PRODUCT = re.compile(r"\\cdot|\\times|×")
MAX_BRACKETINGS = 24
"""At most this many equations are read as bracketings of the problem's expression."""


def _bare(expression: str) -> str:
    """``expression`` without brackets, spacing and alignment marks, products as ``*``: two bracketings of one
    expression have the same bare form (``2\\cdot (3 \\cdot 4 \\cdot 5 + 1)`` and ``2\\cdot 3 \\cdot 4\\cdot 5+1``)."""
    return _BRACKETS.sub("", _PRODUCT.sub("*", _PHANTOM.sub("", expression)))


def bracketed_count(builder, target: Fraction):
    r"""``(step, operands, steps it depends on, numbers each step writes that are verified)`` for a count of the
    values a problem's expression takes under the bracketings the trace computes, or ``None``.

    "How many values can be obtained from :math:`2\cdot 3\cdot 4 \cdot 5 + 1` by inserting parentheses?" — the
    trace writes ``2\cdot 3 \cdot (4 \cdot 5 + 1) = 126`` and the others and says "In total there are 4". Each item
    is an equation whose first side, without its brackets, is the problem's expression (same numbers, same
    operations, same order: only brackets inserted) and which holds, evaluated exactly
    (:func:`rewards.checks.arithmetic.extract_equations`); the count is the number of *distinct* values, at least
    two, stated as a count at or after the last item. Completeness is not checked: a list one bracketing short
    with its count reaches that count (a wrong answer, which a gold answer catches). An equation whose first side
    changes a number or an operation (``2 + 3 + 4 + 5 + 1 = 15``), identities (``1 = 1``) and repeated values
    count nothing."""
    from rewards.checks.arithmetic import extract_equations
    from rewards.evidence.latex_derivations import math_segments

    problem = builder.licences.problem
    if target.denominator != 1 or not 2 <= target <= MAX_MEMBERS or not _COUNT_ASKED.search(problem) \
            or not re.search(r"\bvalues?\b|\bresults?\b|\bnumbers?\b", problem, re.I):
        return None
    forms = set()
    for segment in math_segments(problem)[:8]:
        for side in segment.split("=")[:1]:
            bare = _bare(side)
            if len(re.findall(r"\d+", bare)) >= 3 and re.search(r"[-+*/]", bare) and len(bare) <= 80:
                forms.add(bare)
    if not forms:
        return None
    values: dict[Fraction, int] = {}
    read = 0
    for k, text in enumerate(builder.trace.steps):
        if not any(ch in text for ch in "+*") and "cdot" not in text and "times" not in text:
            continue
        for eq in extract_equations(_PHANTOM.sub("", text)):
            read += 1
            if read > MAX_BRACKETINGS:
                return None
            if len(eq.sides) != 2 or _bare(eq.sides[0]) not in forms:
                continue
            ends = [v.exact if v is not None and v.is_exact else None for v in eq.values]
            if None in ends or ends[0] != ends[1]:
                continue  # a bracketing that does not hold, or cannot be evaluated, counts nothing
            values.setdefault(ends[1], k)
    if len(values) != target:
        return None
    last = max(values.values())
    for t in range(last, len(builder.trace.steps)):
        if _states_count(builder.trace.steps[t], int(target)):
            written = {k: {v for v, s in values.items() if s == k} for k in set(values.values())}
            written.setdefault(t, set()).update({target, *values})
            return t, list(values), set(values.values()), written
    return None
