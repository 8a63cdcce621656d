"""The one batching rule (rewards.adapters.batching) and the three entry points that use it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rewards.adapters.batching import group_indices, score_by_group

_keys = st.lists(st.one_of(st.none(), st.tuples(st.sampled_from("pqr"), st.sampled_from(["12", None]))), max_size=40)


@given(_keys, st.one_of(st.none(), st.integers(1, 5)))
def test_groups_partition_the_batch_by_key_in_first_appearance_order(keys, max_size):
    groups = group_indices(keys, max_size=max_size)
    assert sorted(i for g in groups for i in g) == list(range(len(keys)))  # every position exactly once
    for g in groups:
        assert g == sorted(g) and len({keys[i] for i in g}) == 1  # ascending, one key
        assert max_size is None or len(g) <= max_size
        if keys[g[0]] is None:
            assert len(g) == 1  # no key: scored alone
    firsts = [g[0] for g in groups]
    if max_size is None:
        assert firsts == sorted(firsts)  # groups in order of their first item
        assert len(groups) == len({k for k in keys if k is not None}) + keys.count(None)


def test_equal_prompts_with_different_golds_are_different_groups():
    assert group_indices([("p", "12"), ("p", "13"), ("p", "12"), ("p", None)]) == [[0, 2], [1], [3]]


def test_max_size_splits_a_group_into_consecutive_chunks():
    assert group_indices(["a"] * 5 + ["b"], max_size=2) == [[0, 1], [2, 3], [4], [5]]


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "3"])
def test_max_size_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match=rf"max_size={bad!r} must be a positive integer"):
        group_indices(["a"], max_size=bad)


def test_score_by_group_scores_each_group_once_and_restores_input_order():
    calls = []

    def score(group):
        calls.append(list(group))
        return [f"{x}:{len(group)}" for x in group]

    items = ["a1", "b1", "a2", "c1", "b2", "a3"]
    out = score_by_group(items, key=lambda s: s[0], score=score)
    assert out == ["a1:3", "b1:2", "a2:3", "c1:1", "b2:2", "a3:3"]
    assert calls == [["a1", "a2", "a3"], ["b1", "b2"], ["c1"]]
    assert score_by_group([], key=lambda s: s, score=score) == []


def test_score_by_group_rejects_a_scorer_that_drops_results():
    with pytest.raises(ValueError, match="score returned 1 results for a group of 2 items"):
        score_by_group(["a", "a"], key=lambda s: s, score=lambda group: group[:1])


def test_the_engines_and_the_trl_rewards_form_the_same_groups():
    """The same four rollouts (two prompts, one with a second gold) give the same group components in the
    engine core and the TRL reward: both score each (prompt, gold) group once."""
    from rewards.adapters.engines.core import Item, score_items
    from rewards.adapters.trl_rewards import RAFSReward

    q1, q2 = "Tom has 3 boxes of 4 pens. How many pens?", "Ann has 2 bags of 5 apples. How many apples?"
    rows = [(q1, "3 * 4 = 12 pens.\n#### 12", "12"), (q2, "2 * 5 = 10 apples.\n#### 10", "10"),
            (q1, "3 * 4 = 13 pens.\n#### 13", "12"), (q1, "3 * 4 = 12 pens.\n#### 12", "13")]
    engine = score_items([Item(p, c, g, group=p) for p, c, g in rows])
    trl = RAFSReward("rafs_reward", cache=False).score([p for p, _, _ in rows], [c for _, c, _ in rows],
                                                       [g for _, _, g in rows])
    assert [r["components"]["C_A"] for r in engine] == [None if t.components["C_A"] is None else
                                                        round(t.components["C_A"], 6) for t in trl]
    assert engine[0]["components"]["C_A"] is not None and engine[1]["components"]["C_A"] is None  # K=2 vs K=1
    assert engine[3]["components"]["C_A"] is None  # the other gold: a group of its own
