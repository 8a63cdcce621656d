r"""What licenses a number beyond the problem's quantities and verified computation: a fact the checker verifies,
and a trial value the trace binds *and* checks against the problem's own condition.

A quantity that feeds the answer must be reached from the problem (``DataflowBuilder.strict``); competition solutions
also introduce numbers legitimately. Two kinds are licensed here, each only through something checked:

* **A number fact** about reached numbers (:mod:`rewards.checks.number_facts`): ``The GCD of 3744 and 22100 is 52``
  after both were derived, ``the units digit of 16 is 6``, ``4225 = 65^2``, in a problem about its operation
  (:func:`fact_called_for`: divisors or multiples, digits, roots, powers or logarithms). The fact is an operation on its
  arguments, verified with integer arithmetic, so its result is *derived* from them: the step produces it, uses the
  arguments and depends on their steps. A fact about a number nothing reached licenses nothing (a true fact about
  an invented number is still an invented number), and a false fact is no fact.
* **A trial value** (``let's try x = 3``, ``if n = 41``, ``when k = 29``, ``substituting x = 4``) of a letter of an
  equation the *problem* states (``1^x + 2^x + 5^x = 642``, ``p(n) = n^2 - n + 41``), licensed only where the same
  step then computes the problem's expression at that value and shows it: the expression's terms evaluated
  (``We get 1 + 8 + 125 = 134``) or the expression written with the value put in, followed by its value
  (``p(41) = 41^2 - 41 + 41 = 41^2``). Both are checked exactly (sympy, through math-verify's LaTeX parser,
  :mod:`rewards.checks.latex_algebra`). Then the value, the evaluated terms and the expression's value are reached:
  trying a value and computing what it gives is the method, not a number from nowhere. A value bound and never
  checked (``let x = 4``, then the answer), a check the step only asserts (``x = 4 gives 642``), or one computed
  wrongly licenses nothing.

Nothing here refutes: a fact that does not hold, or a check that fails, only leaves its numbers unsupported.

>>> lic = Licences("If $x$ is a positive integer such that $1^x + 2^x + 5^x = 642$, what is $x$?")
>>> sorted(lic.trial_values("Let's try $x=3$. We get $1 + 8 + 125 = 134$, which is too small."))
[Fraction(1, 1), Fraction(3, 1), Fraction(8, 1), Fraction(125, 1), Fraction(134, 1)]
>>> lic.trial_values("Let's try $x=4$. So the answer is 4.")
[]
"""

from __future__ import annotations

import re
from fractions import Fraction

from rewards.checks.arithmetic import extract_equations
from rewards.checks.number_facts import number_facts, sequence_facts
from rewards.evidence.domain_facts import domain_constants
from rewards.evidence.enumerations import license_members
from rewards.evidence.expression_rewrites import ProblemExpressions, license_rewrites
from rewards.evidence.numeric_rewrites import license_rewritten
from rewards.evidence.quantities import read_numbers, value_key

MAX_TRIAL = 10 ** 6
"""The largest trial value (in absolute value) licensed: larger ones are no trial a solution computes by hand."""

MAX_RELATIONS = 4
"""At most this many of the problem's equations are tried against a binding."""

_MATH = re.compile(r"\$\$(.{1,240}?)\$\$|\$(.{1,240}?)\$|\\\[(.{1,240}?)\\\]|\\\((.{1,240}?)\\\)", re.S)
_LONE_LETTER = re.compile(r"(?<![\\A-Za-z])([A-Za-z])(?![A-Za-z])")
_FUNCTION = re.compile(r"^\s*[A-Za-z]\s*\(\s*([A-Za-z])\s*\)\s*$")
_BINDING = re.compile(
    r"\b(?:try|trying|tried|test|testing|check|checking|plug|plugging|substitut\w{0,6}|suppose|assume|if|when|for|"
    r"consider|let(?:'s| us)?)\b[^.=\n]{0,30}?(?<![\\A-Za-z])([A-Za-z])\s*=\s*(-?\d{1,7})(?![\d.]|\s*[+\-*/^×])",
    re.I)
_BOUND_VALUE = re.compile(r"[A-Za-z]\s*=\s*-?\d", re.I)
"""What every :data:`_BINDING` match holds (its letter, ``=`` and the value's first digit, with the same flags): a
step without it binds nothing, and is not scanned with ``_BINDING``, whose case-insensitive words have no literal
prefix to skip to, so that the regex engine tries them at every character (~8.6 us a step of a long GSM8K trace).
Tested by :func:`_bound_value`, which finds the same steps from each ``=``."""
_VALUE_AFTER_EQUALS = re.compile(r"=\s*-?\d")
_CASELESS_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\u0130\u0131\u017f\u212a")
"""The characters ``[A-Za-z]`` matches under ``re.I``: the ASCII letters, and İ, ı, ſ and the Kelvin sign, which
case-fold to one (tests/rewards/test_long_trace_fast_paths.py checks every code point)."""


def _bound_value(text: str) -> bool:
    r"""Whether :data:`_BOUND_VALUE` finds a match in ``text``, found from each ``= digit`` (a literal the regex
    engine skips to) by looking back over blanks (``str.isspace`` is ``\s``) for a letter: about half the time of
    the search that tries its letter class at every letter of the step. Linear: a run of blanks read back from one
    ``=`` ends at the previous character that is no blank, so no character is read back twice."""
    for match in _VALUE_AFTER_EQUALS.finditer(text):
        j = match.start() - 1
        while j >= 0 and text[j].isspace():
            j -= 1
        if j >= 0 and text[j] in _CASELESS_LETTERS:
            return True
    return False


_STRIP = re.compile(r"\\(?:left|right|,|;|!|\s)|[\s{}$]")
_TIMES = re.compile(r"\\(?:cdot|times)|×")
_CLOSE = re.compile(r"\\[\])]|[,;]|\.(?!\d)|\\(?:implies|quad|text)")


def _flat(latex: str) -> str:
    """``latex`` without spacing, braces, ``$`` and ``\\left``/``\\right``; products as ``*``."""
    return _STRIP.sub("", _TIMES.sub("*", latex))


def _relations(problem: str) -> list[tuple[str, str]]:
    """The problem's equations with an unknown, as ``(letter, expression)``: ``1^x + 2^x + 5^x = 642`` gives
    ``("x", "1^x + 2^x + 5^x")``; a definition ``p(n) = n^2 - n + 41`` gives ``("n", "n^2 - n + 41")``."""
    from rewards.checks.latex_algebra import split_top_level
    out: list[tuple[str, str]] = []
    for match in _MATH.finditer(problem):
        segment = next(g for g in match.groups() if g is not None)
        sides = split_top_level(segment)
        if len(sides) != 2:
            continue
        defined = _FUNCTION.match(sides[0])
        side = sides[1] if defined else sides[0]
        letters = {m[1] for m in _LONE_LETTER.finditer(side)} if not defined else {defined[1]}
        if len(letters) == 1 and re.search(r"[-+^*/]|\\(?:frac|cdot|times|sqrt)", side):
            out.append((letters.pop(), side.strip()))
        if len(out) >= MAX_RELATIONS:
            break
    return out


def _evaluated(expression: str, letter: str, value: int) -> tuple[list[Fraction], Fraction] | None:
    """The terms of ``expression`` at ``letter = value`` and its value (``None``: unreadable or not rational)."""
    import sympy  # local: loads only where a trial is bound
    from rewards.checks.latex_algebra import parse
    expr = parse(expression)
    if expr is None or {s.name for s in expr.free_symbols} != {letter}:
        return None
    symbol = next(iter(expr.free_symbols))
    try:
        terms = [sympy.nsimplify(term.subs(symbol, value)) for term in sympy.Add.make_args(expr)]
    except Exception:  # noqa: BLE001 - untrusted text: a value that cannot be put in licenses nothing
        return None
    if not all(t.is_Rational for t in terms):
        return None
    values = [Fraction(int(t.p), int(t.q)) for t in terms]
    return values, sum(values, Fraction(0))


def _terms_shown(segment: str, terms: list[Fraction], total: Fraction) -> bool:
    """The segment writes the expression's terms evaluated and summed: an equation whose first side is those
    numbers (as many, the same values up to sign) and whose result is the expression's value."""
    wanted = sorted(abs(t) for t in terms)
    for eq in extract_equations(segment):
        if len(eq.sides) < 2 or not eq.values or eq.values[-1] is None or not eq.values[-1].is_exact:
            continue
        numbers = [v for v, _ in read_numbers(eq.sides[0])]
        if len(numbers) >= 2 and sorted(numbers) == wanted and eq.values[-1].exact == total:
            return True
    return False


def _substituted_shown(segment: str, letter: str, expression: str, value: int, total: Fraction) -> bool:
    """The segment writes the expression with the value put in (``41^2 - 41 + 41``) and, after an ``=``, a side
    whose value is the expression's value."""
    from rewards.checks.latex_algebra import split_top_level, value_matches
    flat, written = _flat(segment), _flat(expression)
    for put in (str(value), f"({value})"):
        form = re.sub(r"(?<![\\A-Za-z])" + letter + r"(?![A-Za-z])", lambda _m, p=put: p, written)
        at = flat.find(form)
        if at < 0 or form == written:
            continue
        rest = _CLOSE.split(flat[at + len(form):], maxsplit=1)[0]  # to the end of the display or sentence
        later = split_top_level(rest)[1:4]
        if any(value_matches(side, total).status == "verified" for side in later if side):
            return True
    return False


KNOWN_FORMULAS: tuple[tuple[re.Pattern, str], ...] = (
    (re.compile(r"\bdiagonals?\b", re.I), "n(n-3)/2"),
    (re.compile(r"\bodd (?:positive )?(?:integers?|numbers?)\b", re.I), "2n-1"),
    (re.compile(r"\binterior angles?\b", re.I), "180(n-2)"),
    (re.compile(r"\bhandshakes?\b|\bshakes? hands\b", re.I), "n(n-1)/2"),
)
"""Formulas a solution may quote for the object its problem names — the diagonals of an n-gon, the n-th odd
integer, the interior angles of an n-gon, the handshakes among n people — as ``(the problem's words, the formula in
n)``. A quoted formula is checked against the known one (equal as functions, :mod:`rewards.checks.latex_algebra`);
only then are its constants (the 3 of ``n(n-3)/2``) reached."""


_SEQUENCES = re.compile(r"\bprimes?\b|\bprime numbers?\b|\b(?:even|odd) (?:positive )?(?:integers?|numbers?)\b|"
                        r"\bperfect (?:squares?|cubes?)\b", re.I)
"""A problem about a named sequence: the primes, the even or odd integers, the perfect squares or cubes."""


FACT_TOPICS: dict[str, re.Pattern] = {
    "gcd": re.compile(r"divis|divid|factor|multiple|common|gcd|lcm|simplif|lowest terms|relatively prime|coprime|"
                      r"left ?over|identical|evenly|same number", re.I),
    "units_digit": re.compile(r"digit", re.I),
    "root": re.compile(r"\\sqrt|root|square|cube|\^|power|radical|exponent|\\log|logarithm", re.I),
}
"""The words of a problem that calls for each kind of number fact (``lcm`` as ``gcd``, ``power`` as ``root``; a gcd
also for identical groups with nothing left over): a fact is licensed only in a problem about its operation.
Elsewhere a true fact about the problem's numbers that lands on the answer is numerology, not a method (``The GCD of
75 and 30 is 15`` for a problem about rolls sold): it carries no support, and is not wrong."""


def fact_called_for(problem: str, kind: str) -> bool:
    """Whether ``problem`` is about the operation of a fact of ``kind`` (:data:`FACT_TOPICS`).

    >>> fact_called_for("What is the greatest common divisor of 12 and 18?", "gcd")
    True
    >>> fact_called_for("Tom pays 75 dollars for 30 pens. How much is one pen?", "gcd")
    False
    """
    topic = {"lcm": "gcd", "power": "root"}.get(kind, kind)
    return bool(FACT_TOPICS[topic].search(problem)) if topic in FACT_TOPICS else False


def _sequence_word(kind: str) -> str:
    return next(w for w in ("prime", "even", "odd", "square", "cube") if w in kind.lower())


class Licences:
    """The licences of one trace's problem (module docstring): build once per trace, ask per step."""

    __slots__ = ("problem", "_relations", "_pending", "formulas", "sequences", "roots", "members", "enumerated",
                 "candidates", "expressions", "domain")

    def __init__(self, problem: str) -> None:
        self.problem = problem
        self._relations: list[tuple[str, str]] | None = None  # read on the first binding only
        self._pending: list[tuple[str, int]] = []  # bound at the end of the step before, not yet checked
        self.roots: set[Fraction] = set()  # roots of reached powers the current step's facts name
        self.formulas = any(words.search(problem) for words, _ in KNOWN_FORMULAS)
        """Whether the problem names an object of a known formula."""
        self.sequences = {_sequence_word(n) for n in _SEQUENCES.findall(problem)}
        """The named sequences the problem is about (``prime``, ``even``, ``odd``, ``square``, ``cube``)."""
        self.members: list | None = None  # the sets the problem's conditions describe, read on the first list
        self.enumerated: list[tuple[int, tuple[int, ...]]] = []
        """``(step, items)`` of each list that is exactly such a set (:mod:`rewards.evidence.enumerations`)."""
        self.candidates: list[tuple[int, tuple[int, ...]]] = []
        """``(step, items)`` of each list that is such a set but for one condition (the candidates)."""
        self.domain = domain_constants(problem)
        """The constants of the objects the problem names and the steps of the progressions it lists
        (:mod:`.domain_facts`): reached from the first step on."""
        self.expressions = ProblemExpressions(problem) if problem else None
        """The problem's expressions, whose checked rewrites license their constants (:mod:`.expression_rewrites`)."""

    def trial_values(self, text: str) -> list[Fraction]:
        """The values a step licenses by trying a value of the problem's unknown and computing what it gives: the
        value, the evaluated terms and the expression's value (``[]``: no checked trial). A value bound at the end
        of one step (``Let's try n = 41:``) may be checked at the start of the next."""
        pending, self._pending = self._pending, []
        bindings = list(_BINDING.finditer(text)) if "=" in text and _bound_value(text) else []
        if not bindings and not pending:
            return []
        if self._relations is None:
            self._relations = _relations(self.problem)
        out: set[Fraction] = set()
        trials = [(letter, value, text[:400]) for letter, value in pending]
        for k, binding in enumerate(bindings):
            end = bindings[k + 1].start() if k + 1 < len(bindings) else len(text)
            trials.append((binding[1], int(binding[2]), text[binding.end():min(end, binding.end() + 400)]))
        for letter, value, segment in trials:
            found = self._checked(letter, value, segment) if abs(value) <= MAX_TRIAL else set()
            out.update(found)
            if not found and segment.strip(" $\\)]:.,\n") == "":  # bound last, checked (perhaps) next
                self._pending.append((letter, value))
        return sorted(out)

    def _checked(self, letter: str, value: int, segment: str) -> set[Fraction]:
        """What ``segment`` licenses by computing the problem's expression at ``letter = value``."""
        for name, expression in self._relations or ():
            found = _evaluated(expression, letter, value) if name == letter else None
            if found is None:
                continue
            terms, total = found
            if _terms_shown(segment, terms, total) or _substituted_shown(segment, letter, expression, value, total):
                return {Fraction(value), total, *(abs(t) for t in terms)}
        return set()


_QUADRATIC = re.compile(r"[^$=\\[\]()]{0,80}\^\s*\{?2\}?[^$=\\[\]]{0,80}=\s*0(?![\d.])")
_FORMULA = re.compile(r"\\pm|±|quadratic formula", re.I)


def quadratic_values(text: str, is_reached=lambda value: True) -> set[Fraction]:
    r"""The numbers the quadratic formula computes from each quadratic equation ``A x^2 + B x + C = 0`` that
    ``text`` states (rational coefficients, each ``is_reached`` up to sign): ``|B|``, ``B^2``, ``|4AC|``, ``2|A|``,
    the discriminant's absolute value and, when it is a square, its root.

    >>> sorted(quadratic_values(r"\[ k^2 - 6k + 1 = 0 \]"))
    [Fraction(2, 1), Fraction(4, 1), Fraction(6, 1), Fraction(32, 1), Fraction(36, 1)]
    >>> quadratic_values(r"\[ k^2 - 6k + 1 = 0 \]", lambda value: value != 6)
    set()
    """
    import sympy  # local: loads only where a step writes the formula
    from rewards.checks.latex_algebra import parse
    out: set[Fraction] = set()
    for match in list(_QUADRATIC.finditer(text))[:MAX_RELATIONS]:
        eq = parse(match.group(0).strip(" ,.:"))
        if not isinstance(eq, sympy.Eq) or len(eq.free_symbols) != 1:
            continue
        try:
            poly = sympy.Poly(eq.args[0] - eq.args[1], *eq.free_symbols)
        except Exception:  # noqa: BLE001 - untrusted text: no polynomial, no licence
            continue
        if poly.degree() != 2 or not all(c.is_Rational for c in poly.all_coeffs()):
            continue
        a, b, c = (Fraction(int(v.p), int(v.q)) for v in poly.all_coeffs())
        if not all(is_reached(abs(v)) for v in (a, b, c) if v):
            continue  # a quadratic of numbers from nowhere licenses nothing
        disc = b * b - 4 * a * c
        out.update({abs(b), b * b, abs(4 * a * c), abs(2 * a), abs(disc)} - {Fraction(0)})
        root = sympy.sqrt(sympy.Rational(abs(disc).numerator, abs(disc).denominator))
        if root.is_Rational:
            out.add(Fraction(int(root.p), int(root.q)))
    return out


def formula_constants(problem: str, text: str) -> set[Fraction]:
    r"""The constants of each known formula (:data:`KNOWN_FORMULAS`) for an object ``problem`` names that ``text``
    writes in one letter, checked equal to the known formula (``rac{n(n-3)}{2}``, ``2k - 1``): a formula that
    differs (an invented ``n - 5``) licenses nothing.

    >>> sorted(formula_constants("How many diagonals does a convex hexagon have?", r"is \[ \frac{m(m-3)}{2} \]"))
    [Fraction(2, 1), Fraction(3, 1)]
    >>> formula_constants("How many diagonals does a convex hexagon have?", r"is \[ \frac{n(n-5)}{2} \]")
    set()
    """
    from rewards.checks.latex_algebra import expressions_equal, split_top_level
    wanted = [formula for words, formula in KNOWN_FORMULAS if words.search(problem)]
    out: set[Fraction] = set()
    if not wanted:
        return out
    sides = [side for m in _MATH.finditer(text) for side in split_top_level(next(g for g in m.groups() if g))]
    for side in sides[:8]:
        letters = {m[1] for m in _LONE_LETTER.finditer(side)}
        if len(letters) != 1 or not re.search(r"\d", side):
            continue
        renamed = _LONE_LETTER.sub("n", side)
        if any(expressions_equal(renamed, formula).status == "verified" for formula in wanted):
            out.update(v for v, _ in read_numbers(side))
    return out


_POWER = re.compile(r"(?<![\w.^_])(?<!\^\{)(?<!_\{)\(?\s*-?\s*(\d{1,6})\s*\)?\s*\^\s*\{?\s*(\d{1,2})(?![\d.])")
_RAISED = re.compile(r"\s*\}?\s*\)\s*\^")
MAX_POWER = 10 ** 15
"""The largest value of a power evaluated in a chain that is licensed."""


def chain_powers(sides, is_reached) -> set[Fraction]:
    r"""The powers of reached integers that one side of a chain writes (``12^2``, ``(-6)^2``, ``2^{3}``) and the
    next side writes evaluated (``144``, ``36``, ``8``): the reader takes the next side's number for a number from
    nowhere unless the power's base is reached and its value is the one written.

    >>> sorted(chain_powers([r"12^2 - (5i)^2", "144 + 25", "169"], lambda v: v in (5, 12)))
    [Fraction(144, 1)]
    >>> chain_powers([r"7^2 - 1", "49 - 1"], lambda v: v == 12)  # the base reached from nowhere
    set()
    >>> chain_powers([r"(3^2)^x", "9^x"], lambda v: True)  # a base rewritten, not a power evaluated
    set()
    """
    out: set[Fraction] = set()
    for k in range(len(sides) - 1):
        if "^" not in sides[k]:
            continue
        written = {v for v, _ in read_numbers(sides[k + 1])}
        for match in _POWER.finditer(sides[k]):
            base, exponent = int(match[1]), int(match[2])
            if exponent < 2 or base < 2 or exponent * len(match[1]) > 16 or _RAISED.match(sides[k], match.end()):
                continue  # (3^2)^x = 9^x rewrites a base, it evaluates nothing
            value = Fraction(base ** exponent)
            if value <= MAX_POWER and value in written and is_reached(Fraction(base)):
                out.add(value)
    return out


def license_before(builder, index: int, text: str) -> None:
    """Before a step's equations are read, what the step's checked licences reach (before the first, the known
    constants of the objects the problem names: :mod:`.domain_facts`): its checked trials
    (:meth:`Licences.trial_values`); a known formula's constants (:func:`formula_constants`); the quantities the
    quadratic formula computes from a quadratic of the problem, this step or the one before whose coefficients are
    reached (in a step that writes ``\\pm`` or names the formula, :func:`quadratic_values`); the powers of
    reached integers a chain evaluates (:func:`chain_powers`); the root a fact names of a reached power
    (``4225 = 65^2``, read here because the equation reader takes 65 for an operand); and the constants of the
    problem's expression that a checked rewrite of it writes (:func:`~.expression_rewrites.license_rewrites`); and
    the part values of a reached computation that a rewrite of it writes (:func:`~.numeric_rewrites.license_rewritten`)."""
    licences = builder.licences
    values = licences.trial_values(text) if licences.problem and "=" in text else []
    if index == 0:
        values.extend(licences.domain)
    if licences.formulas:
        values.extend(formula_constants(licences.problem, text))
    if "=" in text and _FORMULA.search(text):
        before = builder.trace.steps[index - 1] if index > 0 else ""
        problem = licences.problem if "^" in licences.problem else ""
        values.extend(v for part in (problem, before, text) for v in quadratic_values(part, builder.is_reached))
    licences.roots = set()
    if "^" in text:
        for eq, _check in builder.equations[index]:
            values.extend(chain_powers(eq.sides, builder.is_reached))
        licences.roots = {Fraction(f.result) for f in number_facts(text)  # "Since 4225 = 65^2": before 65 is read
                          if f.kind == "root" and fact_called_for(licences.problem, "root")
                          and value_key(Fraction(f.arguments[0])) in builder.strict
                          and not builder.is_reached(Fraction(f.result))}
        values.extend(licences.roots)
    values.extend(license_rewrites(builder, text))  # the problem's expression rewritten: its constants
    values.extend(license_rewritten(builder, index, text))  # a reached computation written with its parts evaluated
    for value in values:
        builder.strict.add(value_key(value))
        builder.known.add(value_key(value))


def license_facts(builder, flow, text: str) -> None:
    """After a step's equations are read: a true number fact about reached numbers derives its result
    (:func:`~rewards.checks.number_facts.number_facts`): produced by the step, from its arguments. In a problem
    about a named sequence (the first four primes, the 17th odd positive integer), the terms of that sequence a step
    states correctly (:func:`~rewards.checks.number_facts.sequence_facts`) are reached."""
    license_members(builder, flow, text)  # a complete list of what the problem's conditions describe
    words = builder.licences.sequences
    if words:
        for kind, terms in sequence_facts(text):
            if _sequence_word(kind) in words:
                for term in terms:
                    builder.strict.add(value_key(Fraction(term)))
                    builder.known.add(value_key(Fraction(term)))
    for fact in number_facts(text):
        if not fact_called_for(builder.licences.problem, fact.kind):
            continue  # a fact the problem does not call for: numerology, no support
        arguments = [Fraction(a) for a in fact.arguments[:1 if fact.kind in ("root", "power", "units_digit") else 2]]
        result = Fraction(fact.result)
        if (builder.is_reached(result) and result not in builder.licences.roots) or result in flow.produced \
                or not all(value_key(a) in builder.strict for a in arguments):
            continue  # nothing to license, or a fact about a number nothing reached
        flow.produced.append(result)
        flow.used.extend(a for a in arguments if a not in flow.used)
        for a in arguments:
            producer = builder.producers.get(value_key(a))
            if producer is not None:
                flow.depends_on.add(producer)
        builder.strict.add(value_key(result))
        builder.known.add(value_key(result))
