"""The one batching rule of every RAFS entry point: group a flat batch by a key, score each group once, and hand
the results back in input order.

TRL's reward functions (:mod:`rewards.adapters.trl_rewards`, key ``(prompt, gold)``), the verl / OpenRLHF core
(:mod:`rewards.adapters.engines.core`, key ``(group, gold)``) and ``rafs serve``'s request splitting
(:mod:`trainers.serve`) all go through :func:`group_indices`, so they agree on what a group is:

* items with equal (non-``None``) keys form one group, so the group components ``C_A`` and ``D_R`` see all of a
  prompt's ``K`` samples; the gold is part of the key, so samples judged against different golds never mix;
* a ``None`` key is a group of its own (an item without a prompt or group is scored alone: ``P_R`` and ``S_RA``);
* groups come in order of their first item, and a group lists its positions in increasing order;
* ``max_size`` splits a large group into consecutive chunks of at most that many items (bounds ``D_R``'s pairwise
  work, ``O(K²)``).

>>> batch = [("Q1", "12"), ("Q2", "7"), ("Q1", "12"), None, ("Q1", "13")]
>>> group_indices(batch)
[[0, 2], [1], [3], [4]]
>>> score_by_group(["a", "b", "a", "a"], key=lambda s: s, score=lambda group: [f"{s}/{len(group)}" for s in group])
['a/3', 'b/1', 'a/3', 'a/3']
"""

from __future__ import annotations

from typing import Callable, Hashable, Iterable, Sequence, TypeVar

__all__ = ["group_indices", "score_by_group"]

T = TypeVar("T")
R = TypeVar("R")


def group_indices(keys: Iterable[Hashable | None], *, max_size: int | None = None) -> list[list[int]]:
    """The positions of ``keys`` grouped by equal key (module doc: first-appearance order, ``None`` alone).

    Args:
        keys: one hashable key per item, or ``None`` for an item that is its own group.
        max_size: split each group into consecutive chunks of at most this many positions; ``None``: no limit.

    Returns:
        A partition of ``range(len(keys))``: every position exactly once.

    Raises:
        ValueError: ``max_size`` is not a positive integer.

    >>> group_indices(["a", "b", "a", "a", "a"], max_size=2)
    [[0, 2], [3, 4], [1]]
    >>> group_indices([])
    []
    """
    if max_size is not None and (isinstance(max_size, bool) or not isinstance(max_size, int) or max_size < 1):
        raise ValueError(f"max_size={max_size!r} must be a positive integer (the most items scored together) "
                         "or None for no limit.")
    by_key: dict[Hashable, list[int]] = {}
    groups: list[list[int]] = []
    for i, key in enumerate(keys):
        if key is None:
            groups.append([i])
            continue
        members = by_key.get(key)
        if members is None:
            members = by_key[key] = []
            groups.append(members)
        members.append(i)
    if max_size is None:
        return groups
    return [group[k:k + max_size] for group in groups for k in range(0, len(group), max_size)]


def score_by_group(items: Sequence[T], key: Callable[[T], Hashable | None],
                   score: Callable[[list[T]], Sequence[R]], *, max_size: int | None = None) -> list[R]:
    """``score`` called once per group of ``items`` with equal ``key(item)`` (:func:`group_indices`); returns one
    result per item, in input order: ``out[i]`` is the result ``score`` gave ``items[i]`` within its group.

    Args:
        items: the flat batch.
        key: an item's group key; ``None`` scores the item alone.
        score: scores one group (a list of items, in input order) and returns one result per item, in order.
        max_size: the most items one ``score`` call receives (a larger group is scored in consecutive chunks).

    Raises:
        ValueError: ``score`` returned a different number of results than the items it was given.

    >>> score_by_group([3, 1, 4, 1, 5], key=lambda n: n % 2, score=lambda g: [sum(g)] * len(g))
    [10, 10, 4, 10, 10]
    """
    items = list(items)
    out: list[R | None] = [None] * len(items)
    for positions in group_indices((key(it) for it in items), max_size=max_size):
        group = [items[i] for i in positions]
        results = list(score(group))
        if len(results) != len(group):
            raise ValueError(f"score returned {len(results)} results for a group of {len(group)} items; it must "
                             "return one result per item, in order.")
        for i, result in zip(positions, results):
            out[i] = result
    return out  # type: ignore[return-value]
