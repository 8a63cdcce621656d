r"""Counterfactual agreement: completions that reach one answer the same way compute the same function of the problem.

The paper's conditional reasoning stability (``D_R``) compares the *claims* of the traces that reach the modal answer.
This module compares what their derivations *compute*: each answer's derivation read as a function ``f(q_1..q_n)``
of the problem's quantities (:mod:`rewards.evidence.derivation_function`), evaluated at edited inputs. A member whose
function agrees with none of the group's other correct, comparable members — while some of those agree with each
other — is *isolated*, and earns ``κ`` (``isolation_penalty``) times its reward. Where a reference solution exists (a worked gold solution: the
SFT filter, ``rafs eval``, a GSM8K ``answer`` column in training) a member is compared with the reference's function
instead.

Guards against rewarding conformity (each one a rule below):

* **degeneracy first** — a constant, copied or cancelling function
  (:attr:`~rewards.evidence.derivation_function.DerivationFunction.degenerate`) is no derivation: it is never compared,
  never a peer, and whoever agrees with it gains nothing (it already earns the unsupported floor);
* **only checked derivations compare** — a member is comparable only when its answer is supported (a verified
  derivation from the problem, nothing from nowhere, no hedge, not hollow) and no step of it is refuted;
* **a minimum number of comparable peers** (``isolation_min_peers``, 2) with a consensus among them (two peers that
  agree with each other): no member is isolated by a group that has no common method;
* **a small penalty for isolation, never a bonus for agreement** — agreeing is worth exactly what not being compared
  is worth (factor 1);
* **absent, never 0** — no function (a group of one, algebra or a root on the way, a derivation that writes no problem
  quantity), too few peers, or no point both functions can evaluate: :func:`group_agreement` gives ``None`` for that
  member and its reward is what it would be without this module.

**Consistent edits** (:func:`consistent_edits`, :func:`agree`). Two functions are compared at edits of the
quantities *both* depend on, one class of equal values at a time: quantities of equal value move together (a problem
that states "5 shirts … the 5 shirts" stays one problem when both change, and two solutions that read the 5 from
different places compute the same function); a whole value ``v`` becomes ``v + 1`` and ``v + 2``, a proper fraction or
a rate in ``(0, 1)`` becomes ``v / 2`` and ``v / 3`` (it stays a fraction). Answers are compared exactly
(:class:`fractions.Fraction`), relative to the two base answers where those differ in scale (``0.25`` and ``25`` for
"25%"). Two derivations *agree* when they respond alike to the edits of at least one shared quantity, and
*disagree* when they respond differently to every one (:func:`agree` says why one and not all). At most
:data:`MAX_EDIT_CLASSES` classes are edited.

Where equal functions are out of reach, so that two valid methods can disagree: a different but consistent reading
of the problem (the two compute different functions on purpose); a unit or rate one solution converts and another
does not; and, on *every* shared quantity at once, the reading's own limits — a free constant equal to a quantity
read the other way, a computation the reading cannot parse (its result then read from an earlier step that derived
the same value). A literal with two sources (a value two steps derived, a derived value equal to a problem number:
``6 / 2 = 3`` then ``63 / 3`` when the problem states a 3) is linked to each in turn: every non-degenerate reading
of a derivation (at most :data:`MAX_ALTERNATIVES` besides the first) is compared, and two derivations agree when
some reading of each does. Algebra, roots and functions on the way are not read (absent, not disagreement).
Measured on ProcessBench's valid GSM8K solutions against GSM8K test's worked solutions
(``benchmarks/agreement_reference.py``): 1 of the 128 compared valid solutions is isolated (``4 rooms × 4 small
candles per room = 16`` is not parsed, so its ``16 + 20`` reads the flashlights' 16 and 20), none of the 4 compared
flawed ones.

>>> from rewards.scoring.score import score_group
>>> p = ("Janet's ducks lay 16 eggs per day. She eats 3 for breakfast and bakes muffins with 4. She sells the "
...      "remainder at $2 per egg. How much does she make every day?")
>>> faithful = ["16 - 3 - 4 = 9 eggs.\n9 * 2 = 18 dollars.\n#### 18",
...             "She sells 16 - 4 - 3 = 9 eggs.\nShe makes 2 * 9 = 18 dollars.\n#### 18",
...             "2 * 16 = 32, 2 * 3 = 6, 2 * 4 = 8.\n32 - 6 - 8 = 18\n#### 18"]
>>> shortcut = "16 + 2 = 18 dollars.\n#### 18"                       # a lucky one-operation shortcut
>>> cfg = {"counterfactual_agreement": True}
>>> [r.agreement for r in score_group(p, [*faithful, shortcut], config=cfg, mode="reward")]
[1.0, 1.0, 1.0, 0.9]
>>> score_group(p, [shortcut], config=cfg, mode="reward")[0].agreement is None   # a group of one: absent
True
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from rewards.evidence import DerivationFunction, answer_derivations, build_dataflow, derivation_function
from rewards.parsing.trace import parse_trace

__all__ = ["Agreement", "consistent_edits", "agree", "group_agreement", "reference_function", "MAX_EDIT_CLASSES",
           "MAX_ALTERNATIVES"]

log = logging.getLogger(__name__)

MAX_EDIT_CLASSES = 12
"""At most this many classes of equal-valued quantities are edited per comparison (two edits each)."""

MAX_ALTERNATIVES = 3
"""Besides its first reading, at most this many other readings of a derivation are compared (a literal with two
sources — a value two steps derived, a derived value equal to a problem number — linked to the other one):
:func:`agree` calls two derivations alike when some reading of each agrees."""

_MAX_REFERENCE_CHARS = 8000
"""A reference solution longer than this is not read (a gold solution is short; the bound keeps the cost fixed)."""


@dataclass(frozen=True)
class Agreement:
    """One member's counterfactual agreement.

    Attributes:
        factor: what the member's reward is multiplied by: ``κ`` when isolated, else 1.
        isolated: its function disagrees with every comparable peer (or the reference) at edited inputs.
        compared: how many peers (or 1 for the reference) it was compared with.
        agreeing: how many of them compute its function.
        basis: ``"group"`` (the group's other correct members) or ``"reference"`` (a reference solution).
        reason: why it is isolated (``None`` when it is not).
    """

    factor: float
    isolated: bool
    compared: int
    agreeing: int
    basis: str
    reason: str | None = None


def _edits_of(v: Fraction) -> tuple[Fraction, Fraction]:
    """Two edits of one value that keep its kind: a whole number stays whole, a fraction in (0, 1) stays one."""
    if 0 < v < 1:
        return v / 2, v / 3
    return v + 1, v + 2


def _classes(values: Sequence[Fraction], symbols) -> dict[Fraction, tuple[int, ...]]:
    """The classes of equal-valued quantities that ``symbols`` touch (at most :data:`MAX_EDIT_CLASSES`, the first by
    symbol), each with every symbol of its value."""
    wanted: list[Fraction] = []
    for i in sorted(set(symbols)):
        if 0 <= i < len(values) and values[i] not in wanted:
            wanted.append(values[i])
    wanted = wanted[:MAX_EDIT_CLASSES]
    return {v: tuple(i for i, x in enumerate(values) if x == v) for v in wanted}


def consistent_edits(values: Sequence[Fraction], symbols) -> list[dict[int, Fraction]]:
    """The edits at which two functions are compared, over the quantities ``symbols`` (those both depend on): for each
    class of equal-valued quantities they touch, two edits that move every symbol of that value (:func:`_edits_of`).

    >>> consistent_edits([Fraction(16), Fraction(3), Fraction(16)], [0])
    [{0: Fraction(17, 1), 2: Fraction(17, 1)}, {0: Fraction(18, 1), 2: Fraction(18, 1)}]
    >>> consistent_edits([Fraction(16), Fraction(1, 2)], [1])
    [{1: Fraction(1, 4)}, {1: Fraction(1, 6)}]
    """
    return [{i: new for i in members} for v, members in _classes(values, symbols).items() for new in _edits_of(v)]


def _at(function: DerivationFunction, edit: dict[int, Fraction]) -> Fraction | None:
    try:
        return function.at(edit)
    except Exception:  # noqa: BLE001 - an evaluation bug is no verdict: this point is not compared
        return None


def _same(x: Fraction, base_x: Fraction, y: Fraction, base_y: Fraction) -> bool:
    """Equal answers, relative to the base answers when those differ (``0.25`` against ``25`` for "25%")."""
    return x == y if base_x == base_y or not base_x or not base_y else x * base_y == y * base_x


def agree(f: DerivationFunction, g: DerivationFunction) -> bool | None:
    r"""Whether two derivation functions of one problem agree: on some quantity both depend on, they respond alike —
    equal answers at both :func:`consistent_edits` of that quantity's class. ``False`` when they respond differently
    on every shared quantity; ``None`` when they share no quantity or no edit can be evaluated by both (not
    comparable). Two equal functions agree on every quantity. Each function's other readings
    (:attr:`~rewards.evidence.derivation_function.DerivationFunction.alternatives`, where it was built with them)
    are compared too: they agree when some reading of each does, and disagree when every pair that can be compared
    disagrees.

    Why *some* quantity and not every one: the reading of a derivation cannot always tell a derived value from an
    equal problem number or a free constant from an equal quantity (``2 · 2 + 2 · 1`` for "two … one"; ``6 - 3 = 3``
    then ``+ 3`` when the problem states a 3), so two valid solutions of one method can differ on one quantity's
    role; an unrelated construction differs on all of them. Measured on ProcessBench's valid GSM8K solutions against
    the gold's function (``benchmarks/agreement_reference.py``, when the rule was chosen, before alternative readings):
    requiring every quantity isolated 12 of 113 compared valid solutions, requiring one 3, and both catch the same
    constructions in ``benchmarks/mixed_groups.py``. A quantity only one of the two depends on is not edited: a valid solution that
    multiplies in its head (``75`` for ``3 · 25``) depends on fewer quantities, not on others.

    >>> from rewards.parsing.trace import parse_trace
    >>> p = "Janet's ducks lay 16 eggs. She eats 3 and bakes with 4. She sells the rest at $2 each. How much?"
    >>> def fn(text):
    ...     t = parse_trace(p, text); flow = build_dataflow(t)
    ...     return derivation_function(t, flow, answer_derivations(flow))
    >>> agree(fn("16 - 3 - 4 = 9\n9 * 2 = 18\n#### 18"), fn("16 * 2 = 32\n32 - 3 * 2 - 4 * 2 = 18\n#### 18"))
    True
    >>> agree(fn("16 - 3 - 4 = 9\n9 * 2 = 18\n#### 18"), fn("16 + 2 = 18\n#### 18"))
    False
    """
    if f.values != g.values:
        return None
    verdicts = [_agree_one(x, y) for x in f.all_readings() for y in g.all_readings()]
    if True in verdicts:
        return True
    return False if False in verdicts else None


def _agree_one(f: DerivationFunction, g: DerivationFunction) -> bool | None:
    """:func:`agree` for one reading of each."""
    shared = f.used & g.used
    if not shared:
        return None
    verdicts = []  # per class of equal values: both of its edits give equal answers
    for v, members in _classes(f.values, shared).items():
        seen = []
        for new in _edits_of(v):
            edit = {i: new for i in members}
            x, y = _at(f, edit), _at(g, edit)
            if x is not None and y is not None:
                seen.append(_same(x, f.answer, y, g.answer))
        if seen:
            verdicts.append(all(seen))
    return any(verdicts) if verdicts else None


def reference_function(problem: str, solution: str | None) -> DerivationFunction | None:
    """The function of a reference solution's derivation (a worked gold solution), or ``None`` when there is none:
    no solution (a bare answer), no derivation that can be read, or a degenerate one. Never raises."""
    if not solution or not isinstance(solution, str) or len(solution) > _MAX_REFERENCE_CHARS \
            or ("=" not in solution and "<<" not in solution):
        return None
    try:
        trace = parse_trace(problem, solution)
        if trace.issues or trace.answer is None:
            return None
        flow = build_dataflow(trace)
        function = derivation_function(trace, flow, answer_derivations(flow), alternatives=MAX_ALTERNATIVES)
    except Exception as exc:  # noqa: BLE001 - a reference that cannot be read is no reference
        log.warning("reference solution could not be read (%s: %s); comparing within the group",
                    type(exc).__name__, exc)
        return None
    return function if function is not None and function.degenerate is None else None


def group_agreement(functions: Sequence[DerivationFunction | None], keys: Sequence[str | None], *,
                    penalty: float, min_peers: int = 2,
                    reference: DerivationFunction | None = None,
                    reference_key: str | None = None) -> list[Agreement | None]:
    """Each member's :class:`Agreement` (``None``: absent).

    Args:
        functions: each member's derivation function, ``None`` where it is not comparable (no function, degenerate,
            unsupported, a refuted step: the caller decides).
        keys: each member's answer key (its canonical answer; ``None`` for a wrong or missing answer): only members
            with equal keys are compared.
        penalty: ``κ``, the factor of an isolated member.
        min_peers: the comparable peers (same key, :func:`agree` not ``None``) a member needs to be judged by the
            group; it is isolated when it agrees with none of them and two of them agree with each other.
        reference: a reference solution's function (:func:`reference_function`); every member with a key (or with
            ``reference_key``, when given) is then compared with it alone.
        reference_key: the answer key of the reference (``None``: the caller gave keys to the correct members
            only).
    """
    n = len(functions)
    live = [i for i in range(n) if functions[i] is not None and functions[i].degenerate is None
            and keys[i] is not None]
    out: list[Agreement | None] = [None] * n
    if reference is not None and reference.degenerate is None:
        for i in live:
            if reference_key is not None and keys[i] != reference_key:
                continue
            same = agree(functions[i], reference)
            if same is not None:
                out[i] = Agreement(1.0 if same else penalty, not same, 1, int(same), "reference",
                                   None if same else "its derivation computes another function of the problem's "
                                                     "quantities than the reference solution's (at edited inputs)")
        return out
    pair: dict[tuple[int, int], bool | None] = {}
    for a_pos, i in enumerate(live):
        for j in live[a_pos + 1:]:
            if keys[i] == keys[j]:
                pair[(i, j)] = pair[(j, i)] = agree(functions[i], functions[j])
    for i in live:
        peers = [j for j in live if j != i and pair.get((i, j)) is not None]
        if len(peers) < max(1, min_peers):
            continue
        agreeing = sum(bool(pair[(i, j)]) for j in peers)
        consensus = any(pair.get((j, k)) for x, j in enumerate(peers) for k in peers[x + 1:])
        isolated = agreeing == 0 and consensus
        out[i] = Agreement(penalty if isolated else 1.0, isolated, len(peers), agreeing, "group",
                           f"its derivation computes another function of the problem's quantities than each of the "
                           f"{len(peers)} other comparable members that reach its answer (at edited inputs), some of "
                           "which agree with each other" if isolated else None)
    return out
