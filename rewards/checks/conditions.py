r"""The conditions a problem states on the integers it asks about, read and checked exactly (:func:`problem_conditions`).

"How many two-digit primes have digits that sum to 8?", "How many multiples of 6 are greater than -25 but less
than 25?", "a positive factor of 14 ... a positive factor of 42": conditions that are not equations. Each one read is
a predicate on an integer, checked with integer arithmetic only (no parser, no eval):

========================  ==============================================  ==========================================
kind                      the problem says                                 holds for ``n`` when
========================  ==============================================  ==========================================
``multiple``              multiple(s) of 6, divisible by 3, 4, and 5      ``n % d == 0`` for each ``d``
``divisor``               (positive) factor/divisor of 14                 ``n > 0`` and ``N % n == 0``
``prime``                 prime(s), prime number(s)                       ``n`` is prime (a sieve)
``odd`` / ``even``        odd / even numbers, integers                    ``n % 2``
``square`` / ``cube``     perfect square(s) / cube(s)                     an exact integer root
``digits``                two-digit, 3-digit                              ``len(str(abs(n)))``
``digit_sum``             digits sum to 7, sum of its digits is 8         the decimal digits' sum
``only_digits``           only the digits 0 and 2                         every decimal digit among them
``lower`` / ``upper``     greater/less than, at least/most, positive,     the bound (``between`` read both ways)
                          between a and b, ``1 \le m \le 8``, the first
                          100 positive integers
========================  ==============================================  ==========================================

A condition the reader does not know is left out, and so is one it reads negated ("not perfect cubes", "neither
... nor"): :func:`condition_sets` then describes a *larger* set than the problem's, so a list that must equal it
(:mod:`rewards.evidence.enumerations`) fails — leaving a condition out can withhold support, never grant it.

What a checked condition is worth is decided where it is used: a number that satisfies every condition is *a*
member of the set the problem describes, not the one its reasoning derived, nor the least, nor the count asked for.
Here nothing is support and nothing refutes; :func:`satisfies` only answers the question.

Bounds (model output is untrusted): numbers of at most :data:`MAX_DIGITS` digits; a set is enumerated only over a
range of at most :data:`MAX_RANGE` integers and kept only with at most :data:`MAX_MEMBERS` members; primes by a
sieve up to the range's end.

>>> c = problem_conditions("For how many two-digit primes is the sum of the digits equal to 8?")
>>> sorted(x.kind for x in c)
['digit_sum', 'digits', 'lower', 'prime', 'upper']
>>> condition_sets(c)
[(17, 53, 71)]
>>> satisfies(c, 53), satisfies(c, 35)
(True, False)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

MAX_DIGITS = 7
"""The longest number a condition may name (a bound, a divisor, a modulus)."""

MAX_RANGE = 10_000
"""The most integers :func:`condition_sets` enumerates."""

MAX_MEMBERS = 40
"""The most members a described set may have to be enumerated (a longer list is not written out)."""

MAX_CONDITIONS = 12
"""At most this many conditions are read from one problem."""

_N = r"(-?\d{1,7})(?![\d.]\d)"
_NOT = re.compile(r"\b(?:not|n't|neither|nor|never|no|except|other than|excluding)\b|\\neq|\\ne\b", re.I)
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "twenty": 20, "fifty": 50, "one hundred": 100, "a hundred": 100, "hundred": 100}
_DIGIT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "1": 1, "2": 2, "3": 3, "4": 4, "5": 5}


@dataclass(frozen=True, slots=True)
class Condition:
    """One condition: its ``kind`` (module table), its numbers (a bound as an inclusive one), and the numbers the
    problem writes for it (``named``: the quantities a derivation from it uses)."""

    kind: str
    numbers: tuple[int, ...] = ()
    named: tuple[int, ...] = ()

    def holds(self, n: int) -> bool:
        """Whether ``n`` satisfies the condition (exact integer arithmetic).

        >>> Condition("multiple", (3, 4, 5)).holds(60), Condition("divisor", (14,)).holds(7)
        (True, True)
        """
        k, v = self.kind, self.numbers
        if k == "multiple":
            return all(d != 0 and n % d == 0 for d in v)
        if k == "divisor":
            return n > 0 and all(m % n == 0 for m in v)
        if k == "prime":
            return _is_prime(n)
        if k == "odd":
            return n % 2 == 1
        if k == "even":
            return n % 2 == 0
        if k == "square":
            return n >= 0 and math.isqrt(n) ** 2 == n
        if k == "cube":
            r = round(abs(n) ** (1 / 3))
            return any((r + e) ** 3 == abs(n) for e in (-1, 0, 1))
        if k == "digits":
            return len(str(abs(n))) == v[0]
        if k == "digit_sum":
            return sum(int(c) for c in str(abs(n))) == v[0]
        if k == "only_digits":
            return set(str(abs(n))) <= {str(d) for d in v}
        if k == "lower":
            return n >= v[0]
        if k == "upper":
            return n <= v[0]
        return False


@lru_cache(maxsize=1)
def _sieve(limit: int = MAX_RANGE * 10) -> bytearray:
    flags = bytearray([1]) * (limit + 1)
    flags[0:2] = b"\x00\x00"
    for p in range(2, math.isqrt(limit) + 1):
        if flags[p]:
            flags[p * p::p] = bytearray(len(range(p * p, limit + 1, p)))
    return flags


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    flags = _sieve()
    if n < len(flags):
        return bool(flags[n])
    if n >= 10 ** 14:
        return False
    from sympy import isprime  # local: sympy loads only for a number past the sieve (trial division up to
    return bool(isprime(n))  # 10**7 would take a second)


def _flat(problem: str) -> str:
    """The problem's prose with math delimiters and LaTeX spacing removed, thousands separators joined."""
    text = re.sub(r"\\[()\[\]]|\$|\\[,;!]|\\text\{([^{}]{0,40})\}|\\mbox\{([^{}]{0,40})\}",
                  lambda m: m.group(1) or m.group(2) or " ", problem)
    text = re.sub(r"(\d)\{,\}(\d{3})", r"\1\2", text)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    text = re.sub(r"\b(?:than|least|most) zero\b", lambda m: m[0][:-4] + "0", text)
    text = text.replace(r"\le ", "<= ").replace(r"\leq", "<=").replace(r"\ge ", ">= ").replace(r"\geq", ">=")
    return " ".join(text.split())


def _negated(text: str, start: int) -> bool:
    """Whether the words just before ``start`` negate what follows ("are not perfect cubes")."""
    return bool(_NOT.search(text[max(0, start - 24):start]))


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"-?\d{1,7}", text))


_MULTIPLE = re.compile(r"\bmultiples? of " + _N, re.I)
_DIVISIBLE = re.compile(r"\b(?:divisible|evenly divisible) by ((?:-?\d{1,7}(?:\s*,\s*|\s*,?\s*and\s+))*-?\d{1,7})"
                        r"(?![\d.]\d)(?!\s*,?\s*or\b)", re.I)
_DIVISOR = re.compile(r"\b(?:factors?|divisors?) of (?:both )?" + r"(\d{1,7}(?:\s*,?\s*and\s+\d{1,7})?)(?![\d.]\d)",
                      re.I)
_PRIME = re.compile(r"\bprimes?\b(?!\s+factor)", re.I)
_PARITY = re.compile(r"\b(odd|even)\b(?=\s+(?:positive\s+|negative\s+)?(?:numbers?|integers?|primes?|multiples?))",
                     re.I)
_POWER_WORD = re.compile(r"\bperfect (squares?|cubes?)\b", re.I)
_DIGITS = re.compile(r"\b(one|two|three|four|five|[1-5])[- ]digit\b", re.I)
_DIGIT_SUM = re.compile(r"\b(?:digits (?:sum|add up) to|sum of (?:its|the|their) digits (?:is|equals|is equal to|"
                        r"equal to|of)) " + _N, re.I)
_ONLY_DIGITS = re.compile(r"\bonly the digits (\d) and (\d)\b|\bdigits (\d) and (\d) only\b", re.I)
_BOUND = re.compile(r"\b(greater than|more than|larger than|bigger than|less than|smaller than|fewer than|"
                    r"at least|at most|no more than|no less than|not more than|not less than|exceeds?|below|above)"
                    r"(?: or equal to)? " + _N, re.I)
_BETWEEN = re.compile(r"\bbetween " + _N + r" and " + _N, re.I)
_FIRST = re.compile(r"\bthe first (\d{1,5}|one hundred|a hundred|hundred|ten|twenty|fifty) positive integers\b",
                    re.I)
_CHAIN = re.compile(r"(?:" + _N + r"\s*(<=|<)\s*)?\b([a-zA-Z])\s*(<=|<|>=|>)\s*" + _N)
_POSITIVE = re.compile(r"\bpositive\b", re.I)
_NEGATIVE = re.compile(r"\bnegative\b", re.I)


def problem_conditions(problem: str) -> list[Condition]:
    """The conditions ``problem`` states (module table), negated ones left out; at most :data:`MAX_CONDITIONS`.

    >>> [(c.kind, c.numbers) for c in problem_conditions("How many multiples of 6 are greater than -25, but less than 25?")]
    [('multiple', (6,)), ('lower', (-24,)), ('upper', (24,))]
    >>> problem_conditions("How many integers in the list are not perfect cubes?")
    []
    """
    if not isinstance(problem, str) or len(problem) > 4000:
        return []
    text = _flat(problem)
    out: list[Condition] = []

    def add(kind: str, numbers: tuple[int, ...], at: int, named: tuple[int, ...] | None = None) -> None:
        if not _negated(text, at) and all(len(str(abs(n))) <= MAX_DIGITS for n in numbers):
            out.append(Condition(kind, numbers, numbers if named is None else named))

    for m in _MULTIPLE.finditer(text):
        add("multiple", (int(m[1]),), m.start())
    for m in _DIVISIBLE.finditer(text):
        add("multiple", _ints(m[1]), m.start())
    for m in _DIVISOR.finditer(text):
        if not re.match(r"\s*[!^]", text[m.end():]):  # "a factor of 10!" or "of 2^{24}": not the number read
            add("divisor", _ints(m[1]), m.start())
    for m in _PRIME.finditer(text):
        if not re.search(r"relatively\s*$|co\s*$", text[max(0, m.start() - 12):m.start()]):
            add("prime", (), m.start())
    for m in _PARITY.finditer(text):
        add(m[1].lower(), (), m.start())
    for m in _POWER_WORD.finditer(text):
        add("square" if m[1].lower().startswith("square") else "cube", (), m.start())
    for m in _DIGITS.finditer(text):
        add("digits", (_DIGIT_WORDS[m[1].lower()],), m.start(), ())
    for m in _DIGIT_SUM.finditer(text):
        add("digit_sum", (int(m[1]),), m.start())
    for m in _ONLY_DIGITS.finditer(text):
        add("only_digits", tuple(int(d) for d in m.groups() if d is not None), m.start())
    for m in _BOUND.finditer(text):
        words, n = m[1].lower(), int(m[2])
        inclusive = "or equal" in m[0].lower() or words in ("at least", "at most", "no more than", "no less than",
                                                            "not more than", "not less than")
        if words.startswith(("not ", "no ")):
            words = {"no more than": "at most", "not more than": "at most"}.get(words, "at least")
            if not _negated(text, m.start()):
                out.append(Condition("upper" if words == "at most" else "lower", (n,), (n,)))
            continue
        upward = words in ("greater than", "more than", "larger than", "bigger than", "at least", "exceeds", "exceed",
                           "above")
        bound = n if inclusive else (n + 1 if upward else n - 1)
        add("lower" if upward else "upper", (bound,), m.start(), (n,))
    for m in _FIRST.finditer(text):
        count = m[1].lower()
        k = _WORD_NUMBERS[count] if count in _WORD_NUMBERS else int(count)
        add("lower", (1,), m.start(), ())
        add("upper", (k,), m.start())
    for m in _CHAIN.finditer(text):
        if m[1] is not None:
            low = int(m[1])
            out.append(Condition("lower", (low if m[2] == "<=" else low + 1,), (low,)))
        n = int(m[5])
        op = m[4]
        if op in ("<=", "<"):
            out.append(Condition("upper", (n if op == "<=" else n - 1,), (n,)))
        else:
            out.append(Condition("lower", (n if op == ">=" else n + 1,), (n,)))
    if _POSITIVE.search(text) and not _NEGATIVE.search(text):
        out.append(Condition("lower", (1,)))
    for c in [c for c in out if c.kind == "divisor"]:
        out.extend((Condition("lower", (1,)), Condition("upper", (min(c.numbers),))))
    for c in [c for c in out if c.kind == "digits"]:
        if c.numbers[0] >= 1:
            low = 10 ** (c.numbers[0] - 1) if c.numbers[0] > 1 else 0
            high = 10 ** c.numbers[0] - 1
            if not any(x.kind == "lower" and x.numbers[0] < 0 for x in out) and not _NEGATIVE.search(text):
                out.extend((Condition("lower", (low,)), Condition("upper", (high,))))
    between = [(int(m[1]), int(m[2])) for m in _BETWEEN.finditer(text) if not _negated(text, m.start())]
    out = list(dict.fromkeys(out))[:MAX_CONDITIONS]
    return out + [Condition("between", pair, pair) for pair in between[:1]]


def satisfies(conditions: list[Condition], n: int) -> bool:
    """Whether ``n`` satisfies every condition (``between`` either inclusive or exclusive)."""
    plain = [c for c in conditions if c.kind != "between"]
    if not all(c.holds(n) for c in plain):
        return False
    return all(low <= n <= high for low, high in (c.numbers for c in conditions if c.kind == "between"))


def condition_sets(conditions: list[Condition]) -> list[tuple[int, ...]]:
    """The sets of integers the conditions describe, in increasing order — one, or two where a ``between`` may be
    read inclusive or exclusive — enumerated over the range the bounds give; ``[]`` where the range is unbounded,
    longer than :data:`MAX_RANGE`, no condition other than the bounds is read, or a set has more than
    :data:`MAX_MEMBERS` members."""
    plain = [c for c in conditions if c.kind not in ("between", "lower", "upper")]
    lows = [c.numbers[0] for c in conditions if c.kind == "lower"]
    highs = [c.numbers[0] for c in conditions if c.kind == "upper"]
    betweens = [c.numbers for c in conditions if c.kind == "between"]
    if not plain:
        return []  # bounds alone: a range, no condition on its members to check
    readings: list[tuple[int | None, int | None]] = []
    if betweens:
        low, high = sorted(betweens[0])
        readings = [(low, high), (low + 1, high - 1)]
    else:
        readings = [(None, None)]
    out: list[tuple[int, ...]] = []
    for extra_low, extra_high in readings:
        low = max(lows + ([extra_low] if extra_low is not None else []), default=None)
        high = min(highs + ([extra_high] if extra_high is not None else []), default=None)
        if low is None or high is None or high < low or high - low + 1 > MAX_RANGE:
            continue
        members: list[int] = []
        for n in range(low, high + 1):
            if all(c.holds(n) for c in plain):
                members.append(n)
                if len(members) > MAX_MEMBERS:
                    break
        if len(members) <= MAX_MEMBERS and tuple(members) not in out:
            out.append(tuple(members))
    return out


_MATH = re.compile(r"\$\$(.{1,240}?)\$\$|\$(.{1,240}?)\$|\\\[(.{1,240}?)\\\]|\\\((.{1,240}?)\\\)", re.S)
"""A math segment of the problem: ``$...$``, ``$$...$$``, ``\[...\]``, ``\(...\)``."""

MAX_INEQUALITY_ITEMS = MAX_MEMBERS
"""The most integers an inequality is evaluated at for one list."""


def problem_inequality(problem: str):
    r"""The problem's own inequality in one letter whose integer solutions form one interval — ``(d, strict,
    letter)`` where the inequality says ``d > 0`` (``d >= 0`` when not strict), ``d`` a polynomial of degree at
    most 2 in the letter or ``k - |linear|`` — or ``None``. Such a set of integers is an interval or unbounded, so
    a run of consecutive integers that satisfy it, whose two neighbours do not, is all of it.

    >>> problem_inequality("How many integers are in the solution of the inequality $|x + 4|< 9$?")[1:]
    (True, 'x')
    >>> problem_inequality("For how many $x$ is $x^3 - x < 6$?") is None
    True
    """
    import sympy  # local: loads only for a problem that states an inequality

    from rewards.checks.latex_algebra import inequality_parts

    if not isinstance(problem, str) or len(problem) > 4000:
        return None
    for match in list(_MATH.finditer(problem))[:6]:
        segment = next(g for g in match.groups() if g is not None)
        if not re.search(r"<|>|\\[lg]eq?\b", segment) or len(segment) > 120:
            continue
        found = inequality_parts(segment.strip(" .,?"))
        if found is None:
            continue
        d, strict = found
        symbols = list(d.free_symbols)
        if len(symbols) != 1:
            continue
        x = symbols[0]
        try:
            if d.is_polynomial(x) and sympy.degree(d, x) <= 2:
                return d, strict, x.name
            absolutes = list(d.atoms(sympy.Abs))
            if len(absolutes) == 1 and absolutes[0].args[0].is_polynomial(x) \
                    and sympy.degree(absolutes[0].args[0], x) == 1:
                u = sympy.Symbol("_u")
                rest = d.subs(absolutes[0], u)
                if x not in rest.free_symbols and rest.is_polynomial(u) and sympy.degree(rest, u) == 1:
                    return d, strict, x.name
        except Exception:  # noqa: BLE001 - untrusted text: an unreadable inequality is no condition
            continue
    return None


def inequality_run(inequality, run: tuple[int, ...], conditions: list[Condition]) -> bool:
    """Whether ``run`` is all the integers that satisfy ``inequality`` (:func:`problem_inequality`) and every one
    of ``conditions``: consecutive, each satisfying them, the integer before and the one after not."""
    from rewards.checks.latex_algebra import value_at

    if inequality is None or not 2 <= len(run) <= MAX_INEQUALITY_ITEMS or list(run) != list(range(run[0], run[-1] + 1)):
        return False
    d, strict, letter = inequality

    def ok(n: int) -> bool:
        value = value_at(d, {letter: Fraction(n)})
        if value is None or abs(value[1]) > 1e-12:
            return False
        inside = value[0] > 1e-9 if strict else value[0] >= -1e-9
        return inside and satisfies(conditions, n)

    return all(ok(n) for n in run) and not ok(run[0] - 1) and not ok(run[-1] + 1)
