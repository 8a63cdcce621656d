"""The reward rules every adapter shares (TRL, verl, OpenRLHF, the server): one home for each.

Faithful accuracy, for a completion with verdict ``result`` (a :class:`~rewards.scoring.score.RAFSResult`) and
``correct`` (its answer equals the gold):

====================================================================  ==========================
wrong answer, or no answer                                            ``0``
correct, and faithful: the answer is derived from the problem's       ``1`` (:data:`FULL_CREDIT`)
quantities through verified operations, nothing ungrounded on the
way, and no suspect step (``result.faithful``)
correct, but a suspect step (a visible slip), an ungrounded quantity   ``u`` (:data:`UNFAITHFUL_CREDIT`, 0.5)
feeding the answer, or no checked derivation at all (a restated,
copied or hidden derivation; an abstention)
correct and faithful, but its derivation function is isolated in    ``κ`` (``isolation_penalty``,
its group or disagrees with a reference solution's                    0.9; ``counterfactual_agreement``)
(``result.agreement``)
no usable gold                                                        ``None``
====================================================================  ==========================

So a correct answer whose reasoning cannot be checked earns no more than one whose reasoning was checked and found
to contain a slip, and strictly less than a faithful one: showing work weakly dominates hiding it.

>>> from rewards.scoring.score import score_trace
>>> problem = "Tom has 3 boxes of 4 pens. How many pens?"
>>> faithful_accuracy(score_trace(problem, "3 * 4 = 12 pens.\\n#### 12", config={"missing_evidence": "no_support"}), True)
1.0
>>> faithful_accuracy(score_trace(problem, "12 = 12\\n#### 12", config={"missing_evidence": "no_support"}), True)
0.5
"""

from __future__ import annotations

from typing import Any

__all__ = ["FULL_CREDIT", "UNFAITHFUL_CREDIT", "faithful_accuracy", "check_credit"]

FULL_CREDIT = 1.0
UNFAITHFUL_CREDIT = 0.5
"""What a correct answer earns when its reasoning is unfaithful or unverifiable (``u``)."""


def check_credit(name: str, value: Any) -> float:
    """``value`` as a credit in [0, 1], or a ``ValueError`` that names the field."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= float(value) <= 1.0:
        raise ValueError(f"{name}={value!r} must be a number in [0, 1] (the reward of a correct answer whose "
                         "reasoning is unfaithful or unverifiable).")
    return float(value)


def faithful_accuracy(result: Any, correct: bool | None, *, unfaithful_credit: float = UNFAITHFUL_CREDIT,
                      unverified_credit: float | None = None, min_rafs: float | None = None) -> float | None:
    """The faithful-accuracy reward of one verdict (module table).

    Args:
        result: the completion's :class:`~rewards.scoring.score.RAFSResult`.
        correct: whether its answer equals the gold (``None``: no usable gold -> ``None``).
        unfaithful_credit: ``u``, the reward of a correct answer with a suspect step or an ungrounded quantity.
        unverified_credit: the reward of a correct answer no checked derivation reaches (default ``u``); a value
            above ``u`` pays a policy for hiding its work.
        min_rafs: when set, a RAFS below it is unfaithful too.
    """
    if correct is None:
        return None
    if not correct:
        return 0.0
    if result.suspect_step is not None:
        return unfaithful_credit
    if not result.supported:
        return unfaithful_credit if unverified_credit is None else unverified_credit
    if min_rafs is not None and (result.score is None or result.score < min_rafs):
        return unfaithful_credit
    agreement = getattr(result, "agreement", None)  # counterfactual agreement: an isolated derivation earns A_i
    return FULL_CREDIT if agreement is None else FULL_CREDIT * agreement
