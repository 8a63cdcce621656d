"""The engine-neutral core of the verl / OpenRLHF adapters and the reward server.

One function, :func:`score_items`, turns a flat batch of ``(problem, completion, gold, group)`` items into one
row per item, in order. Items that share a ``group`` (the same prompt's rollouts) are scored together with
:func:`rewards.scoring.score.score_group`, so the group components C_A (answer consensus) and D_R (reasoning stability)
are available; an item without a group is scored alone (P_R and S_RA only).

The reward rule (``mode``):

* ``"auto"`` (default): the faithful-accuracy rule when the item has a usable ground truth, else RAFS / 100;
* ``"faithful_accuracy"``: ``1.0`` correct and faithful, ``0.5`` correct but a suspect step (a silent failure),
  ``0.0`` wrong or no answer, ``1.0`` correct while RAFS abstains (no evidence either way: plain accuracy) — the
  same rule as :class:`rewards.adapters.trl_rewards.FaithfulAccuracyReward`; an item without a ground truth is an error;
* ``"rafs"``: RAFS / 100 whether or not a ground truth is given.

Engines need a number for every rollout, so an abstaining RAFS (nothing checkable, no final answer, oversized)
becomes :data:`ABSTAIN_REWARD` (``0.0``) in the ``rafs`` rule; the row's ``status`` says ``abstain``.

>>> rows = score_items([Item("Tom has 3 boxes of 4 pens.", "3 * 4 = 12 pens.\\n#### 12", "12"),
...                     Item("Tom has 3 boxes of 4 pens.", "3 * 4 = 13 pens.\\n#### 13", "12"),
...                     Item("Tom has 3 boxes of 4 pens.", "3 * 4 = 12 pens.\\n#### 12", None)])
>>> [round(r["reward"], 2) for r in rows]
[1.0, 0.0, 0.99]
>>> rows[1]["status"], rows[1]["suspect_step"], rows[1]["correct"]
('review', 0, False)
"""

from __future__ import annotations

import logging
import math
import numbers
from dataclasses import dataclass
from typing import Any, Hashable, Mapping, Sequence

from rewards.adapters.batching import group_indices, score_by_group
from rewards.adapters.pool import Failure, check_timeout, check_workers, shared_pool, unscorable
from rewards.adapters.reward_rules import faithful_accuracy

__all__ = ["Item", "score_items", "score_requests", "group_key", "reward_of", "coerce_gold", "coerce_config", "MODES",
           "MAX_GROUP", "ABSTAIN_REWARD"]

log = logging.getLogger(__name__)

MODES = ("auto", "faithful_accuracy", "rafs")
MAX_GROUP = 256
"""A group larger than this is scored in consecutive chunks of this size (bounds D_R's pairwise work)."""
ABSTAIN_REWARD = 0.0
"""The reward of an abstaining RAFS under the ``rafs`` rule (engines need a number for every rollout)."""
_MAX_GOLD_CHARS = 10_000


@dataclass(frozen=True)
class Item:
    """One completion to score.

    Attributes:
        problem: the problem text (or chat messages); ``None`` scores without grounding in the problem.
        completion: the model's completion (text or chat messages).
        gold: the ground-truth answer (bare, GSM8K ``#### X`` or ``\\boxed{}``), or ``None``.
        group: items with the same non-``None`` group are one problem's rollouts (C_A and D_R over them).
    """

    problem: Any
    completion: Any
    gold: str | None = None
    group: Hashable | None = None


def coerce_gold(value: Any) -> str | None:
    """A ground truth as the scorer takes it: text, a number as text, the first of a list; ``None`` if absent.

    >>> import numpy as np
    >>> coerce_gold(18), coerce_gold(np.int64(18)), coerce_gold(np.array(["7", "seven"])), coerce_gold("  ")
    ('18', '18', '7', None)
    """
    if value is None:
        return None
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):          # includes numpy integers (verl's parquet columns)
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        try:
            seq = list(value) if not isinstance(value, Mapping) else None
        except TypeError:
            seq = None
        if not seq:
            return None
        return coerce_gold(seq[0])
    value = value.strip()
    if not value or len(value) > _MAX_GOLD_CHARS:
        return None
    return value


def coerce_config(config: Any):
    """``None``, a :class:`~rewards.scoring.score.RAFSConfig` or a dict of its fields -> a reward's ``RAFSConfig``
    (:meth:`~rewards.scoring.score.RAFSConfig.coerce` with ``use="reward"``: missing evidence is no support)."""
    from rewards.scoring.score import RAFSConfig

    try:
        return RAFSConfig.coerce(config, use="reward")
    except TypeError as exc:
        raise ValueError(f"rafs_config={config!r} must be a dict of RAFSConfig fields (e.g. {{'tau_accept': 60}}) "
                         "or None for the defaults.") from exc


def _check_mode(mode: str) -> str:
    if mode not in MODES:
        raise ValueError(f"mode={mode!r} is not a reward rule; use one of {list(MODES)}.")
    return mode


def _correct(result, gold: str | None) -> bool | None:
    from rewards.checks.answers import answers_equivalent, gold_answer

    ref = gold_answer(gold) if gold is not None else None
    if ref is None:
        return None
    if result.correct is not None:
        return bool(result.correct)
    return answers_equivalent(result.answer, ref) if result.answer is not None else False


def reward_of(result, gold: str | None, mode: str = "auto") -> tuple[float, bool | None]:
    """``(reward, correct)`` of one :class:`~rewards.scoring.score.RAFSResult` under the rule ``mode`` (module doc).

    >>> from rewards.scoring.score import score_trace
    >>> r = score_trace("Tom has 3 boxes of 4 pens.", "3 * 4 = 13 pens.\\n#### 12")   # right answer, bad step
    >>> reward_of(r, "12"), reward_of(r, None)[1]
    ((0.5, True), None)
    """
    correct = _correct(result, gold)
    rule = mode
    if mode == "auto":
        rule = "faithful_accuracy" if correct is not None else "rafs"
    if rule == "faithful_accuracy":
        if correct is None:
            raise ValueError(f"mode='faithful_accuracy' needs a usable ground truth, got gold={gold!r}; "
                             "pass the answer (e.g. '18') or use mode='auto' (RAFS/100 where it is missing).")
        return faithful_accuracy(result, correct), correct
    return (ABSTAIN_REWARD if result.score is None else round(result.score / 100.0, 6)), correct


def _num(value: Any, digits: int) -> float | None:
    """A finite float rounded to ``digits``, else ``None`` (JSON has no NaN)."""
    if value is None:
        return None
    value = float(value)
    return round(value, digits) if math.isfinite(value) else None


def _row(result, reward: float, correct: bool | None) -> dict[str, Any]:
    reward = _num(reward, 6)
    return {
        "reward": ABSTAIN_REWARD if reward is None else reward,
        "rafs": _num(result.score, 4),
        "status": result.status,
        "failure_type": result.failure_type,
        "suspect_step": result.suspect_step,
        "correct": correct,
        "answer": result.answer,
        "components": {k: _num(v, 6) for k, v in result.components.items()},
        "reasons": list(result.reasons)[:8],
    }


def _score_chunk(items: Sequence[Item], config) -> list:
    """Score one group (or a singleton) with score_group; never raises on model output."""
    from rewards.scoring.score import score_group, score_trace

    problem = items[0].problem
    gold = items[0].gold
    try:
        if len(items) == 1:
            return [score_trace(problem, items[0].completion, gold=gold, config=config)]
        return score_group(problem, [it.completion for it in items], gold=gold, config=config)
    except Exception as exc:  # noqa: BLE001 - a training run must never die on one group
        log.warning("RAFS could not score a group of %d: %s: %s; scoring its items alone", len(items),
                    type(exc).__name__, exc)
        return [score_trace(it.problem, it.completion, gold=it.gold, config=config) for it in items]


def group_key(item: Item) -> Hashable | None:
    """The batching key of an item (:func:`rewards.adapters.batching.group_indices`): ``(group, gold)``, or ``None``
    (scored alone) when the item has no group.

    >>> group_key(Item("q", "c", "12", group="q1")), group_key(Item("q", "c", "12"))
    (('q1', '12'), None)
    """
    return None if item.group is None else (item.group, item.gold)


def score_items(items: Sequence[Item], *, config: Any = None, mode: str = "auto", num_workers: int | None = 1,
                timeout_s: float | None = None) -> list[dict[str, Any]]:
    """Score a flat batch, grouping items by ``(group, gold)``; returns one row per item, in input order.

    ``num_workers > 1`` or a ``timeout_s`` scores the groups on the process's shared scoring pool
    (:mod:`rewards.adapters.pool`; ``None``: :func:`~rewards.adapters.pool.default_num_workers`), one group per
    task, with the same rows; a group past ``timeout_s`` seconds has its worker killed and replaced, and its items
    get the abstaining verdict (the reward an unscorable item gets under ``mode``) with the reason in ``reasons``.

    Each row: ``reward`` (float, see the module doc), ``rafs`` (0-100 or ``None``), ``status``, ``failure_type``,
    ``suspect_step``, ``correct`` (``None`` without a ground truth), ``answer``, ``components``
    (``P_R``, ``S_RA``, ``C_A``, ``D_R``) and ``reasons``.

    >>> rows = score_items([Item("2 cats and 3 dogs.", "2 + 3 = 5\\n#### 5", None, group="q1"),
    ...                     Item("2 cats and 3 dogs.", "2 + 3 = 5\\n#### 5", None, group="q1")])
    >>> rows[0]["components"]["C_A"]      # consensus needs the group
    1.0
    """
    _check_mode(mode)
    cfg = coerce_config(config)
    workers = check_workers("num_workers", num_workers)
    timeout_s = check_timeout("timeout_s", timeout_s)
    if workers is None:
        from rewards.adapters.pool import default_num_workers

        workers = default_num_workers()
    if workers > 1 or timeout_s is not None:
        return _score_on_pool(list(items), cfg, mode, workers, timeout_s)

    def score(chunk: list[Item]) -> list[dict[str, Any]]:
        results = _score_chunk(chunk, cfg)
        return [_row(result, *reward_of(result, it.gold, mode)) for it, result in zip(chunk, results)]

    return score_by_group(items, key=group_key, score=score, max_size=MAX_GROUP)


def _score_on_pool(items: list[Item], cfg, mode: str, workers: int, timeout_s: float | None) -> list[dict[str, Any]]:
    """:func:`score_items` with one task per group on the shared pool (same grouping, same rows)."""
    groups = group_indices((group_key(it) for it in items), max_size=MAX_GROUP)
    replies = shared_pool(workers).map(_score_chunk, [([items[i] for i in g], cfg) for g in groups],
                                       timeout_s=timeout_s)
    out: list[dict[str, Any] | None] = [None] * len(items)
    for positions, reply in zip(groups, replies):
        if isinstance(reply, Failure):
            log.warning("RAFS could not score a group of %d: %s", len(positions), reply.reason)
            reply = [unscorable(f"not scored: {reply.reason}", cfg) for _ in positions]
        for i, result in zip(positions, reply):
            out[i] = _row(result, *reward_of(result, items[i].gold, mode))
    return out  # type: ignore[return-value]


def score_requests(rows: Sequence[tuple], config: Mapping[str, Any] | None, mode: str) -> list[dict[str, Any]]:
    """:func:`score_items` over picklable ``(problem, completion, gold, group)`` tuples: the entry point of a
    process-pool worker (``rafs serve``), which receives plain tuples rather than :class:`Item` objects.

    >>> [r["reward"] for r in score_requests([("2 cats and 3 dogs.", "2 + 3 = 5\\n#### 5", "5", None)], None, "auto")]
    [1.0]
    """
    return score_items([Item(*r) for r in rows], config=config, mode=mode)
