r"""Counterfactual agreement: completions that reach one answer the same way compute the same function of the problem.

The paper's conditional reasoning stability (``D_R``) compares the *claims* of the traces that reach the modal answer.
This module compares what their derivations *compute*: each answer's derivation read as a function ``f(q_1..q_n)``
of the problem's quantities (:mod:`rewards.scoring.derivation`), evaluated at edited inputs. Two derivations agree
when their functions give the same answer at every edit both can evaluate; a member whose function agrees with none
of the group's other correct, comparable members — while some of those agree with each other — is *isolated*, and
earns ``κ`` (``isolation_penalty``) times its reward. Where a reference solution exists (a worked gold solution: the
SFT filter, ``rafs eval``, a GSM8K ``answer`` column in training) a member is compared with the reference's function
instead.

Guards against rewarding conformity (each one a rule below):

* **degeneracy first** — a constant, copied or cancelling function
  (:attr:`~rewards.scoring.derivation.DerivationFunction.degenerate`) is no derivation: it is never compared, never a
  peer, and whoever agrees with it gains nothing (it already earns the unsupported floor);
* **only checked derivations compare** — a member is comparable only when its answer is supported (a verified
  derivation from the problem, nothing from nowhere, no hedge, not hollow) and no step of it is refuted;
* **a minimum number of comparable peers** (``isolation_min_peers``, 2) with a consensus among them (two peers that
  agree with each other): no member is isolated by a group that has no common method;
* **a small penalty for isolation, never a bonus for agreement** — agreeing is worth exactly what not being compared
  is worth (factor 1);
* **absent, never 0** — no function (a group of one, algebra or a root on the way, a derivation that writes no problem
  quantity), too few peers, or no point both functions can evaluate: :func:`group_agreement` gives ``None`` for that
  member and its reward is what it would be without this module.

**Consistent edits** (:func:`consistent_edits`). Quantities of equal value move together (a problem that states "5
shirts … the 5 shirts" stays one problem when both change, and two solutions that read the 5 from different
places compute the same function); a whole value ``v`` becomes ``v + 1`` and ``v + 2``, a proper fraction or a rate in
``(0, 1)`` becomes ``v / 2`` and ``v / 3`` (it stays a fraction); then one joint edit moves every class at once. At
most :data:`MAX_EDIT_CLASSES` classes (the first by symbol) are edited. Answers of two functions are compared exactly
(:class:`fractions.Fraction`); where the two compute the answer in different scales (``0.25`` and ``25`` for "25%"),
relative to their own base answers.

Where equal functions are out of reach (so two valid methods can disagree): a free constant that equals a problem
quantity (``· 2`` for "twice" in one solution, the problem's ``2`` in another), a quantity the problem implies that
one solution derives and another writes as a number (a dozen, a week's 7 days), a distractor one solution uses and
cancels where another never writes it is fine (the functions are equal), but a *different reading* of the problem
(two consistent interpretations) computes a different function; algebra, roots and functions are not read at all
(absent).

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

from rewards.parsing.trace import parse_trace
from rewards.scoring.dataflow import answer_derivations, build_dataflow
from rewards.scoring.derivation import DerivationFunction, derivation_function  # the one import of derivation.py

__all__ = ["Agreement", "consistent_edits", "profile", "agree", "group_agreement", "reference_function",
           "MAX_EDIT_CLASSES"]

log = logging.getLogger(__name__)

MAX_EDIT_CLASSES = 12
"""At most this many classes of equal-valued quantities are edited (two edits each, plus one joint edit)."""

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


def consistent_edits(values: Sequence[Fraction], symbols: Sequence[int]) -> list[dict[int, Fraction]]:
    """The edits at which functions are compared: for each class of equal-valued quantities that ``symbols`` touch
    (every symbol of that value moves, :func:`_edits_of`), two edits; then one edit of every class at once.

    >>> consistent_edits([Fraction(16), Fraction(3), Fraction(16)], [0])
    [{0: Fraction(17, 1), 2: Fraction(17, 1)}, {0: Fraction(18, 1), 2: Fraction(18, 1)}]
    >>> len(consistent_edits([Fraction(16), Fraction(3), Fraction(1, 2)], [0, 1, 2]))   # 3 classes x 2, + joint
    7
    """
    classes: dict[Fraction, list[int]] = {}
    for i in sorted(set(symbols)):
        if 0 <= i < len(values):
            classes.setdefault(values[i], [])
    classes = dict(list(classes.items())[:MAX_EDIT_CLASSES])
    for i, v in enumerate(values):
        if v in classes:
            classes[v].append(i)
    edits: list[dict[int, Fraction]] = []
    for v, members in classes.items():
        for new in _edits_of(v):
            edits.append({i: new for i in members})
    if len(classes) > 1:
        edits.append({i: _edits_of(v)[0] for v, members in classes.items() for i in members})
    return edits


def profile(function: DerivationFunction, edits: Sequence[dict[int, Fraction]]) -> tuple[Fraction | None, ...]:
    """The function's answer at each edit (``None`` where it cannot be evaluated: a division by zero, the size
    bound)."""
    out = []
    for e in edits:
        try:
            out.append(function.at(e))
        except Exception:  # noqa: BLE001 - an evaluation bug is no verdict: this point is not compared
            out.append(None)
    return tuple(out)


def agree(a: tuple[Fraction | None, ...], base_a: Fraction, b: tuple[Fraction | None, ...],
          base_b: Fraction) -> bool | None:
    """Whether two profiles (over the same edits) describe the same function: equal at every edit both can evaluate
    (relative to the base answers when those differ, ``0.25`` against ``25``); ``None`` when no edit is comparable.

    >>> agree((Fraction(20), Fraction(22)), Fraction(18), (Fraction(20), Fraction(22)), Fraction(18))
    True
    >>> agree((Fraction(19), None), Fraction(18), (Fraction(20), Fraction(22)), Fraction(18))
    False
    """
    compared = False
    for x, y in zip(a, b):
        if x is None or y is None:
            continue
        compared = True
        same = x == y if base_a == base_b or not base_a or not base_b else x * base_b == y * base_a
        if not same:
            return False
    return True if compared else None


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
        function = derivation_function(trace, flow, answer_derivations(flow))
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
        min_peers: the comparable peers (same key, a comparable point) a member needs to be judged by the group.
        reference: a reference solution's function (:func:`reference_function`); members with ``reference_key``
            are then compared with it alone.
        reference_key: the answer key of the reference.
    """
    n = len(functions)
    live = [i for i in range(n) if functions[i] is not None and functions[i].degenerate is None
            and keys[i] is not None]
    if not live:
        return [None] * n
    values = functions[live[0]].values
    live = [i for i in live if functions[i].values == values]  # one problem, one symbol space
    use_reference = reference is not None and reference.degenerate is None and reference.values == values
    symbols: set[int] = set()
    for f in [functions[i] for i in live] + ([reference] if use_reference else []):
        symbols |= f.written | f.used
    edits = consistent_edits(values, sorted(symbols))
    if not edits:
        return [None] * n
    profiles = {i: profile(functions[i], edits) for i in live}
    out: list[Agreement | None] = [None] * n
    if use_reference:
        ref_profile = profile(reference, edits)
        for i in live:
            if keys[i] != reference_key:
                continue
            same = agree(profiles[i], functions[i].answer, ref_profile, reference.answer)
            if same is None:
                continue
            out[i] = Agreement(1.0 if same else penalty, not same, 1, int(same), "reference",
                               None if same else "its derivation computes another function of the problem's "
                                                 "quantities than the reference solution's (at edited inputs)")
        return out
    pair: dict[tuple[int, int], bool | None] = {}
    for a_pos, i in enumerate(live):
        for j in live[a_pos + 1:]:
            if keys[i] == keys[j]:
                pair[(i, j)] = pair[(j, i)] = agree(profiles[i], functions[i].answer, profiles[j],
                                                    functions[j].answer)
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
