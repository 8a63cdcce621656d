r"""Algebra between equations: does one equation follow from the previous, and what does a solved value give?

MATH solutions derive their answers by algebra: they rewrite an equation into the next (``2x + 3 = 11`` ->
``2x = 8`` -> ``x = 4``; ``x^2 - 5x + 6 = 0`` -> ``(x-2)(x-3) = 0`` -> ``x = 2``) and substitute a solved value
into an expression (``x = 4``, so ``3x + 1 = 13``). The exact evaluator of :mod:`rewards.checks.arithmetic` checks
none of these (they have letters in them). This module decides them, model-free and bounded:

:func:`follows` ``(previous, current, bindings=None) -> bool | None``
    whether the equation ``current`` follows from ``previous`` by algebra (their relation is one of
    :data:`FOLLOWING` below); ``False`` when it provably does not; ``None`` when undecidable.
:func:`relation` ``(previous, current, bindings=None) -> Relation``
    the same with the kind of relation and a one-line reason.
:func:`substitutes` ``(expression, bindings) -> Fraction | None``
    the exact value of an expression once solved values are put in (``None`` when a letter stays free).
:func:`holds_under` ``(left, right, bindings) -> bool | None``
    whether an equation holds once solved values are put in (``a + b = 7`` with ``a = 2, b = 5``).
:func:`rational_roots` ``(left, right) -> (unknown, roots) | None``
    the rational roots of an equation in one unknown of degree 1 or 2 (re-solving an edited equation);
    :func:`real_roots` its real roots of any degree up to :data:`MAX_DEGREE`, approximated within 1e-6.
:func:`identical` ``(left, right, bindings=None) -> bool | None``
    whether two expressions are one rewritten (``(a+b)^2 = a^2 + 2ab + b^2``): a link of a chain.
:func:`equation_sides` ``(text) -> tuple[str, str] | None``
    ``"2x + 3 &= 11"`` -> ``("2x + 3", "11")`` (a chain ``A = B = C`` is read as ``A = C``).

The rule
    Write each equation as ``D = left - right``. Two equations are compared by their *zero sets* (the values of
    their unknowns that satisfy them), never by their text:

    * ``equivalent`` — ``D2 = c * D1`` for a constant ``c != 0`` at :data:`PROPORTIONAL_POINTS` random rational
      points (exactly; within a relative 1e-9 when a side is irrational, ``\sqrt{2}``, ``\pi``), or, line by line,
      the two zero sets agree (both inclusions below);
    * ``selects`` — every solution of ``current`` solves ``previous`` (``x^2 = 4`` -> ``x = 2``: a root chosen;
      ``\frac{3}{x} = 6`` -> ``x = \frac{1}{2}``);
    * ``implies`` — every solution of ``previous`` solves ``current`` (``\sqrt{x+1} = x - 1`` squared);
    * ``unrelated`` — neither (a slip, ``2x + 3 = 11`` -> ``2x = 9``, or two equations that are not one
      derivation: two lines of a system);
    * ``identity`` / ``undecided`` — an equation is true for every value (a rewrite of an expression, no
      condition), or the equations cannot be read or compared (radicals on both sides, an equation defined on too
      few random points such as ``\binom{n}{2}``, out of budget).

    Inclusions are decided *exactly* along lines: every unknown but one is fixed at a random rational
    (:data:`LINES` line per unknown), and ``D`` along the line is reconstructed from its exact values at 12
    rational points: a polynomial of degree <= :data:`MAX_DEGREE` (Newton divided differences), else a reduced
    fraction ``N/Q`` of polynomials with ``Q`` of degree <= 2 (a linear solve over the rationals); the points not
    used for the fit check it. With both reconstructed, ``Z(D2) ⊆ Z(D1)`` on the line iff the square-free part of
    ``N2`` divides ``N1`` and shares no root with ``Q1`` (every root, complex and irrational too, by exact
    polynomial division). When only one is reconstructed and its roots are rational (degree 1, or 2 with a square
    discriminant) the other is evaluated at those roots; ``x = <irrational>`` is checked by evaluating the other
    equation at the float's own rational within a relative 1e-9. A line where ``D2`` has no root says nothing
    (vacuous). In one unknown the single line is a proof; with several, a direction is False when any line
    refutes it and True when at least one confirms it and none refutes it. Two equations with no unknown in
    common (``x = 1`` then ``y = 2``) are ``unrelated`` at once.

``follows`` is True for :data:`FOLLOWING` = ``equivalent`` and ``selects``: every solution of the later equation
solves the earlier one, so a value it states (``x = 4``) solves the earlier equation, and along a chain of such
steps it solves the first (the inclusions compose). ``implies`` (squaring, multiplying by a factor that can vanish)
is a true consequence but is *not* ``follows``: its extra roots solve nothing earlier, and a chain
``x = 3`` -> ``(x - 3)(x - 18) = 0`` (implies) -> ``x = 18`` (selects) would "derive" 18; ``follows`` gives None
for it (not False: the step is no slip). Restating the previous equation verbatim is ``equivalent`` with
``Relation.restated`` set: it derives nothing new.

An equation that holds on a range of values rather than at finitely many (``\frac{|x|}{x} = 1``, piecewise
identities with ``|..|``) is ``undecided``: it holds at two distinct random points, or next to a root it has
(:data:`~rewards.checks.algebra.points.NEAR`); otherwise any value in the range would be "selected" from it.

What is read (safely: nothing is ever ``eval``-ed or ``sympify``-ed)
    Each side is tokenized once by :func:`rewards.checks.arithmetic.tokens.tokenize` (math mode) and evaluated by
    the bounded exact evaluator :func:`rewards.checks.arithmetic.parser.eval_tokens` with every unknown replaced
    *as a token* by a rational literal ``(p/q)``. Unknowns: single letters (``x``, ``A``), juxtaposed lowercase
    letters as a product (``2ab``), Greek letters (``\theta``); never ``i`` or ``e`` (the imaginary unit, Euler's
    number). LaTeX: ``\frac \dfrac \sqrt \cdot \times \left( \right) ^{2} \pi \sin \log_2 \binom |..|``, ``$``,
    ``&=``, ``\boxed``. ``x(x+1)`` is a product, but ``f(x)``, ``g(``, ``h(``, ``p(``, ``q(`` are function notation
    and refused; so are subscripts (but a single letter's numeric or one-letter one names an unknown of its own:
    ``s_1``, ``x_{12}``, ``h_a``; not an index ``a_n``, ``x_i``), primes, ``\pm``, inequalities, ``\text{..}``
    labels, ``\dots``, sums, vectors (``\mathbf``), a degree mark in a side alone and any command not listed. An
    angle named by its vertices (``\angle ACB``) is one unknown; an equation's degree marks are dropped as a unit
    (``2x + 20^\circ = 180^\circ``) unless it has a trigonometric function or ``\pi``.

Bounds (model output is untrusted and this runs on a reward's hot path, off the main thread: no ``signal``)
    sides of at most :data:`MAX_SIDE_CHARS` characters and :data:`MAX_TOKENS` tokens (and the evaluator's own
    bounds on digits, exponents, bits and depth); at most :data:`MAX_UNKNOWNS` unknowns; polynomial degree at most
    :data:`MAX_DEGREE`; at most :data:`MAX_EVALUATIONS` side evaluations and :data:`MAX_WORK` tokens evaluated per
    call, after which the answer is ``None``: counted, never timed, so a verdict does not depend on the machine's
    load. Results are cached, each with what it cost (:func:`algebra_work`).


The modules, one concept each
    :mod:`~rewards.checks.algebra.sides` reads an equation's text into sides (what is read, what is refused);
    :mod:`~rewards.checks.algebra.budget` counts the work; :mod:`~rewards.checks.algebra.points` evaluates sides at
    random rational points; :mod:`~rewards.checks.algebra.lines` compares zero sets along lines;
    :mod:`~rewards.checks.algebra.relations` decides :func:`relation`, :func:`follows` and :func:`identical`;
    :mod:`~rewards.checks.algebra.combinations` :func:`combines`; :mod:`~rewards.checks.algebra.substitution`
    :func:`substitutes` and :func:`holds_under`; :mod:`~rewards.checks.algebra.roots` :func:`rational_roots` and
    :func:`real_roots`. This package re-exports the public names; import them from here.

>>> from fractions import Fraction
>>> follows("2x + 3 = 11", "2x = 8"), follows("2x = 8", "x = 4"), follows("2x + 3 = 11", "2x = 9")
(True, True, False)
>>> relation("x^2 - 5x + 6 = 0", "(x-2)(x-3) = 0").kind, relation("x^2 = 4", "x = 2").kind
('equivalent', 'selects')
>>> follows(r"\frac{x+5}{3} = 2y", "x = 6y - 5"), follows("a + b = 7", "b = 5", {"a": Fraction(2)})
(True, True)
>>> substitutes("3x + 1", {"x": Fraction(4)}), substitutes(r"\frac{a}{b}", {"a": Fraction(1)}) is None
(Fraction(13, 1), True)
>>> follows("f(x) = 2x", "f(x) = 3x") is None  # function notation: not read
True
"""

from __future__ import annotations


from rewards.checks.algebra.budget import MAX_EVALUATIONS, MAX_WORK, algebra_work
from rewards.checks.algebra.combinations import MAX_COMBINED, combines
from rewards.checks.algebra.lines import LINES, MAX_DEGREE
from rewards.checks.algebra.relations import FOLLOWING, PROPORTIONAL_POINTS, Relation, follows, identical, relation
from rewards.checks.algebra.roots import rational_roots, real_roots
from rewards.checks.algebra.sides import MAX_SIDE_CHARS, MAX_TOKENS, MAX_UNKNOWNS, equation_sides, unknowns
from rewards.checks.algebra.substitution import holds_under, substitutes

__all__ = [
    "FOLLOWING", "LINES", "MAX_COMBINED", "MAX_DEGREE", "MAX_EVALUATIONS", "MAX_SIDE_CHARS", "MAX_TOKENS",
    "MAX_UNKNOWNS", "MAX_WORK", "PROPORTIONAL_POINTS", "Relation", "algebra_work", "combines", "equation_sides",
    "follows", "holds_under", "identical", "rational_roots", "real_roots", "relation", "substitutes", "unknowns",
]
