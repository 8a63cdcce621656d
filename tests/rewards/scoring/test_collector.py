"""Young garbage collections deferred while a group is scored: scoped, restored, thread-safe, and no verdict moves."""

from __future__ import annotations

import gc
import os
import threading

import pytest

from rewards import score_group
from rewards.scoring import collector
from rewards.scoring.collector import MAX_YOUNG_THRESHOLD, group_chars, young_collections_deferred

P = ("Janet's ducks lay 16 eggs per day. She eats three for breakfast every morning and bakes muffins for her "
     "friends every day with four. She sells the remainder at the farmers' market daily for $2 per fresh duck egg. "
     "How much in dollars does she make every day at the farmers' market?")
GROUP = ["She has 16 - 3 - 4 = 9 eggs left.\nShe makes 9 * 2 = 18 dollars.\n#### 18",
         "She has 16 - 3 - 4 = 8 eggs left.\nShe makes 8 * 2 = 16 dollars.\n#### 16",
         [{"role": "assistant", "content": "16 - 7 = 9 eggs, 9 * 2 = 18.\n#### 18"}]]


@pytest.fixture(autouse=True)
def default_collector(monkeypatch):
    """Each test starts from the interpreter's default thresholds with the collector on, and leaves them so."""
    monkeypatch.delenv("RAFS_GC_DEFER", raising=False)
    found, was_enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(700, 10, 10)
    gc.enable()
    yield
    gc.set_threshold(*found)
    (gc.enable if was_enabled else gc.disable)()


def test_raised_inside_and_restored_after():
    with young_collections_deferred(50_000):
        assert gc.get_threshold() == (50_000, 10, 10)
        assert gc.isenabled()
    assert gc.get_threshold() == (700, 10, 10)


def test_restored_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with young_collections_deferred(50_000):
            raise RuntimeError("a scoring that fails")
    assert gc.get_threshold() == (700, 10, 10)


def test_bounded_and_never_lowered():
    with young_collections_deferred(10 ** 9):
        assert gc.get_threshold()[0] == MAX_YOUNG_THRESHOLD
    gc.set_threshold(5_000, 10, 10)
    with young_collections_deferred(1_000):  # the process's own threshold is lazier already
        assert gc.get_threshold() == (5_000, 10, 10)
    assert gc.get_threshold() == (5_000, 10, 10)


def test_nested_blocks_restore_the_threshold_found_first():
    with young_collections_deferred(20_000):
        with young_collections_deferred(80_000):
            assert gc.get_threshold()[0] == 80_000
        assert gc.get_threshold()[0] == 80_000  # the outer block still runs: no restore yet
    assert gc.get_threshold() == (700, 10, 10)


@pytest.mark.parametrize("switch_off", ["disabled", "zero threshold", "environment"])
def test_left_alone_when_the_collector_is_off_or_deferral_is_off(switch_off, monkeypatch):
    if switch_off == "disabled":
        gc.disable()
    elif switch_off == "zero threshold":
        gc.set_threshold(0, 10, 10)
    else:
        monkeypatch.setenv("RAFS_GC_DEFER", "0")
    before = gc.get_threshold()
    with young_collections_deferred(50_000):
        assert gc.get_threshold() == before
    assert gc.get_threshold() == before
    assert gc.isenabled() == (switch_off != "disabled")


def test_a_threshold_set_by_someone_else_meanwhile_stands():
    with young_collections_deferred(50_000):
        gc.set_threshold(1_234, 5, 5)  # the trainer's own choice, made while a reward runs
    assert gc.get_threshold() == (1_234, 5, 5)
    with young_collections_deferred(50_000):  # and the next block restores that one
        pass
    assert gc.get_threshold() == (1_234, 5, 5)


def test_overlapping_threads_restore_once_all_have_left():
    inside, go = threading.Barrier(3), threading.Event()

    def score():
        with young_collections_deferred(60_000):
            inside.wait(timeout=10)
            go.wait(timeout=10)

    threads = [threading.Thread(target=score) for _ in range(2)]
    for t in threads:
        t.start()
    inside.wait(timeout=10)
    assert gc.get_threshold()[0] == 60_000
    go.set()
    for t in threads:
        t.join(timeout=10)
    assert gc.get_threshold() == (700, 10, 10)
    assert collector._STATE == {"depth": 0, "found": None, "set": None}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_child_forked_inside_a_block_starts_restored():
    with young_collections_deferred(50_000):
        pid = os.fork()
        if pid == 0:  # the child: the threshold found, a free lock, no block open
            ok = gc.get_threshold() == (700, 10, 10) and collector._STATE["depth"] == 0 and collector._LOCK.acquire(
                timeout=1)
            os._exit(0 if ok else 1)
        _, status = os.waitpid(pid, 0)
        assert gc.get_threshold() == (50_000, 10, 10)
    assert os.waitstatus_to_exitcode(status) == 0
    assert gc.get_threshold() == (700, 10, 10)


def test_group_chars_counts_texts_messages_and_steps():
    assert group_chars(["abcd", [{"role": "assistant", "content": "ef"}, {"role": "user"}], 7]) == 6
    assert group_chars([None, "xyz"], [["ab", "c"], None]) == 6


def test_scores_do_not_depend_on_the_collector(monkeypatch):
    deferred = score_group(P, GROUP, gold="18", mode="reward")
    assert gc.get_threshold() == (700, 10, 10)
    monkeypatch.setenv("RAFS_GC_DEFER", "0")
    plain = score_group(P, GROUP, gold="18", mode="reward")
    assert [r.to_dict() for r in deferred] == [r.to_dict() for r in plain]


def test_score_group_raises_the_threshold_while_it_scores(monkeypatch):
    import rewards.scoring.score as score

    seen = []
    real = score._score_group

    def spy(*args):
        seen.append(gc.get_threshold()[0])
        return real(*args)

    monkeypatch.setattr(score, "_score_group", spy)
    score_group(P, [GROUP[0] * 40], gold="18", mode="reward")
    assert seen == [len(GROUP[0]) * 40]
    assert gc.get_threshold() == (700, 10, 10)
