"""The scoring pool behind the reward functions: same results as one process, in order, groups whole, a deadline
that holds on any thread, picklable rewards, and no process left behind.

Real completions: a slice of ProcessBench MATH (``shared/data/processbench/math.json``); its 45 problems with two
completions each are real groups of 2, the rest are groups of 1. The slow completion is a test-only verifier
(:class:`SlowVerifier`, the symbolic verifier that sleeps on a marker line) passed through the reward's public
``verifier=`` argument: the scorer bounds its own work on every slow input found so far, so nothing real runs long
enough to test a deadline reliably.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import operator
import os
import pickle
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from rewards.adapters.pool import (Failure, ScoringPool, active_pids, close_pools, default_num_workers,
                                   shared_pool)
from rewards.adapters.trl_rewards import (AsyncRewardFunction, clear_cache, get_faithful_accuracy_reward,
                                          get_rafs_consensus_reward, get_rafs_reward, rafs_reward)
from rewards.verifiers.symbolic import SymbolicVerifier

MARKER = "This step takes the verifier a minute."
ROOT = Path(__file__).resolve().parents[3]


class SlowVerifier(SymbolicVerifier):
    """The symbolic verifier, except that a trace holding :data:`MARKER` takes 60 s (a completion that hangs)."""

    def verify(self, trace, flow):
        if MARKER in trace.text:
            time.sleep(60)
        return super().verify(trace, flow)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture(autouse=True)
def _no_pool_left():
    yield
    close_pools()
    clear_cache()


@pytest.fixture(scope="module")
def batch(shared_data):
    """24 real MATH completions, groups interleaved: 8 groups of 2 (the same problem twice) and 8 alone."""
    rows = json.loads((shared_data / "processbench" / "math.json").read_text())
    counts = Counter(r["problem"] for r in rows)
    pairs = [r for r in rows if counts[r["problem"]] == 2]
    pairs.sort(key=lambda r: r["problem"])
    paired = pairs[:16]
    singles = [r for r in rows if counts[r["problem"]] == 1][:8]
    # A B ... then their partners later, singles in between: a group is never consecutive here
    order = paired[0::2] + singles[:4] + paired[1::2] + singles[4:]
    prompts = [r["problem"] for r in order]
    completions = ["\n\n".join(r["steps"]) for r in order]
    return prompts, completions


def test_pool_map_keeps_order_and_reports_failures():
    with ScoringPool(2) as pool:
        assert pool.pids() == []  # nothing starts before the first task
        out = pool.map(operator.add, [(i, i) for i in range(20)])
        assert out == [2 * i for i in range(20)]
        failed = pool.map(int, [("7",), ("seven",), ("8",)])
        assert failed[0] == 7 and failed[2] == 8
        assert isinstance(failed[1], Failure) and failed[1].kind == "error" and "ValueError" in failed[1].reason
        pids = pool.pids()
        assert len(pids) == 2 and all(_alive(p) for p in pids)
    assert pool.pids() == [] and not any(_alive(p) for p in pids)
    with pytest.raises(RuntimeError, match="closed"):
        pool.map(operator.add, [(1, 2)])


def test_pool_deadline_kills_only_the_slow_task_and_replaces_its_worker():
    with ScoringPool(2) as pool:
        pool.map(operator.add, [(0, 0)] * 2)  # started and warm
        before = pool.pids()
        start = time.monotonic()
        out = pool.map(time.sleep, [(0.0,), (60.0,), (0.1,), (0.0,)], timeout_s=1.5)
        elapsed = time.monotonic() - start
        assert elapsed < 1.5 + 1.0
        assert out[0] is None and out[2] is None and out[3] is None
        assert isinstance(out[1], Failure) and out[1].kind == "timeout"
        after = pool.pids()
        assert len(after) == 2 and len(set(before) & set(after)) == 1 and pool.replaced == 1
        assert pool.map(operator.mul, [(6, 7)], timeout_s=30) == [42]  # the replacement works
    assert not any(_alive(p) for p in before + after)


def test_a_replacement_still_starting_takes_no_task_an_idle_started_worker_can_take():
    with ScoringPool(2) as pool:
        pool.warm()
        started = set(pool.pids())
        assert isinstance(pool.map(time.sleep, [(60.0,)], timeout_s=0.5)[0], Failure)  # its worker is replaced
        survivor = started & set(pool.pids())
        assert len(survivor) == 1 and len(pool.pids()) == 2
        # the replacement imports and warms up the scorer for seconds: the next task goes to the idle started worker
        assert set(pool.map(os.getpid, [()])) == survivor
        assert pool.map(operator.add, [(1, 2)] * 4) == [3] * 4


def test_warm_scorer_loads_what_the_scorer_imports_lazily():
    code = ("import sys; from rewards.adapters.pool import _LAZY_IMPORTS, warm_scorer; warm_scorer(); "
            "print(sorted(set(_LAZY_IMPORTS) - set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_pool_cannot_be_pickled():
    with ScoringPool(1) as pool, pytest.raises(TypeError, match="shared_pool"):
        pickle.dumps(pool)


@pytest.fixture(scope="module")
def in_process(batch):
    """The verdicts of :func:`batch` scored in this process (one worker, no pool)."""
    prompts, completions = batch
    reward = get_rafs_reward(num_workers=1, cache=False)
    assert not reward.uses_pool()
    return reward.score(prompts, completions)


def test_pool_results_are_bit_identical_and_in_order(batch, in_process):
    prompts, completions = batch
    gold = ["\\boxed{1}"] * len(prompts)
    verdicts = get_rafs_reward(num_workers=2, cache=False).score(prompts, completions)
    assert verdicts == in_process  # every field of every verdict, floats compared exactly
    assert len(active_pids()) == 2
    for factory in (get_rafs_reward, get_faithful_accuracy_reward):
        one, two = factory(num_workers=1), factory(num_workers=2)
        assert two.uses_pool()
        clear_cache()
        expected = one(prompts, completions, answer=gold)
        clear_cache()
        assert two(prompts, completions, answer=gold) == expected


def test_groups_are_never_split(batch):
    """C_A compares a group's answers: scored in halves on two workers, a mixed group would read as unanimous."""
    prompts, completions = batch
    one = get_rafs_consensus_reward(num_workers=1, cache=False)
    two = get_rafs_consensus_reward(num_workers=2, cache=False)
    expected = one(prompts, completions)
    assert sum(v is not None for v in expected) == 16  # the 8 groups of 2
    assert any(v is not None and v < 1.0 for v in expected)  # some groups disagree
    assert two(prompts, completions) == expected


def test_cached_groups_stay_in_this_process(batch):
    prompts, completions = batch
    reward = get_rafs_reward(num_workers=2)
    first = reward(prompts, completions)
    groups = reward.stats["groups"]
    assert reward(prompts, completions) == first and reward.stats["groups"] == groups


def test_a_slow_completion_gets_the_unscorable_credit_within_its_deadline(batch):
    prompts, completions = batch
    prompts = ["Tom has 3 boxes of 4 pens. How many pens?"] + prompts
    completions = [f"3 * 4 = 12 pens.\n{MARKER}\n#### 12"] + completions
    reference = get_rafs_reward(num_workers=1, verifier=SlowVerifier())(prompts[1:], completions[1:])
    reward = get_rafs_reward(num_workers=2, timeout_s=3.0, verifier=SlowVerifier())
    reward(prompts[1:], completions[1:])  # the pool is up and warm: time the deadline, not the start
    timeouts = reward.stats["timeouts"]
    start = time.monotonic()
    got = reward(prompts, completions)
    elapsed = time.monotonic() - start
    assert elapsed < 3.0 + 1.0, elapsed
    assert got[1:] == reference
    assert got[0] == 0.0  # the reward's unscorable credit (missing evidence is no support), never more
    assert reward.stats["timeouts"] == timeouts + 1
    verdict = reward.score(prompts[:1], completions[:1])[0]
    assert verdict.status == "abstain" and "deadline" in verdict.reasons[0]


def test_a_slow_member_of_a_group_spares_its_siblings(batch):
    prompts, completions = batch
    problem = "Tom has 3 boxes of 4 pens. How many pens?"
    group = ["3 * 4 = 12 pens.\n#### 12", "3 + 4 = 7 pens.\n#### 7", f"3 * 4 = 12 pens.\n{MARKER}\n#### 12",
             "4 * 3 = 12 pens.\n#### 12"]
    siblings = [t for t in group if MARKER not in t]
    reference = get_rafs_reward(num_workers=1, verifier=SlowVerifier())([problem] * 3, siblings)
    reward = get_rafs_reward(num_workers=2, timeout_s=2.0, verifier=SlowVerifier())
    start = time.monotonic()
    got = reward([problem] * 4, group)
    # group, members alone, the rest again, plus cold worker starts (seconds each on a loaded machine): far below
    # the 60 s the slow member would hold the batch if its deadline did not hold
    assert time.monotonic() - start < 30.0
    assert got[2] == 0.0 and [got[0], got[1], got[3]] == reference
    assert reward.stats["timeouts"] == 1


def test_a_deadline_holds_off_the_main_thread(batch):
    prompts, completions = batch
    reward = get_rafs_reward(num_workers=1, timeout_s=2.0, verifier=SlowVerifier())
    box: dict = {}

    def run():
        box["out"] = reward(["Tom has 3 boxes of 4 pens."] * 1 + prompts[:3],
                            [f"3 * 4 = 12\n{MARKER}\n#### 12"] + completions[:3])

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert box["out"][0] == 0.0 and box["out"][1:] == rafs_reward(prompts[:3], completions[:3])


def test_rewards_pickle_without_their_pool_and_work_from_threads(batch):
    prompts, completions = batch
    reward = get_rafs_reward(num_workers=2, timeout_s=30.0)
    expected = reward(prompts, completions)
    copy = pickle.loads(pickle.dumps(reward))
    assert copy.__name__ == "rafs_reward" and (copy.num_workers, copy.timeout_s) == (2, 30.0)
    clear_cache()
    results: list = [None, None]

    def run(i, fn):
        results[i] = fn(prompts, completions)

    threads = [threading.Thread(target=run, args=(0, reward)), threading.Thread(target=run, args=(1, copy))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert results == [expected, expected]
    assert len(active_pids()) == 2  # both share this process's pool of 2


def test_async_rewards_run_together_and_match(batch):
    prompts, completions = batch
    gold = ["\\boxed{1}"] * len(prompts)
    rafs = get_rafs_reward(num_workers=2, asynchronous=True)
    accuracy = get_faithful_accuracy_reward(num_workers=2, asynchronous=True)
    # TRL 1.16's is_async_callable: inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(func.__call__)
    assert isinstance(rafs, AsyncRewardFunction) and inspect.iscoroutinefunction(rafs.__call__)
    assert rafs.__name__ == "rafs_reward"

    async def step():
        return await asyncio.gather(rafs(prompts=prompts, completions=completions, answer=gold),
                                    accuracy(prompts=prompts, completions=completions, answer=gold))

    got = asyncio.run(step())
    assert got[0] == get_rafs_reward(num_workers=1)(prompts, completions, answer=gold)
    assert got[1] == get_faithful_accuracy_reward(num_workers=1)(prompts, completions, answer=gold)
    assert pickle.loads(pickle.dumps(rafs)).__name__ == "rafs_reward"


def test_default_scores_in_process_under_pytest(batch):
    prompts, completions = batch
    assert default_num_workers() == 1
    rafs_reward(prompts[:4], completions[:4])
    assert active_pids() == []


def test_default_workers_divide_the_cores_among_the_ranks(monkeypatch):
    env = {k: v for k, v in os.environ.items() if k not in ("RAFS_NUM_WORKERS", "PYTEST_CURRENT_TEST")}
    code = "from rewards.adapters.pool import default_num_workers as d; print(d())"
    cores = len(os.sched_getaffinity(0))
    for ranks, expected in (("1", cores), (str(cores), 1), (str(cores * 2), 1)):
        out = subprocess.run([sys.executable, "-c", code], env={**env, "LOCAL_WORLD_SIZE": ranks}, cwd=ROOT,
                             capture_output=True, text=True, check=True)
        assert int(out.stdout) == expected
    out = subprocess.run([sys.executable, "-c", code], env={**env, "RAFS_NUM_WORKERS": "5"}, cwd=ROOT,
                         capture_output=True, text=True, check=True)
    assert int(out.stdout) == 5
    monkeypatch.setenv("RAFS_NUM_WORKERS", "zero")
    with pytest.raises(ValueError, match="RAFS_NUM_WORKERS"):
        default_num_workers()


def test_bad_arguments_name_the_field():
    with pytest.raises(ValueError, match="num_workers=0"):
        get_rafs_reward(num_workers=0)
    with pytest.raises(ValueError, match="timeout_s=-1"):
        get_rafs_reward(timeout_s=-1)


def test_no_worker_outlives_its_process():
    """A process that used a pool and exits (without closing it) leaves no worker behind: atexit closes the pools,
    and a worker whose pipe closes exits on its own."""
    code = ("from rewards.adapters.trl_rewards import get_rafs_reward; from rewards.adapters.pool import active_pids;"
            "get_rafs_reward(num_workers=2)(['Ann has 2 bags of 5 apples.'], ['2 * 5 = 10\\n#### 10']);"
            "print(*active_pids())")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         timeout=120)
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(_alive(p) for p in pids)


def test_shared_pool_is_one_per_worker_count():
    assert shared_pool(2) is shared_pool(2) and shared_pool(2) is not shared_pool(3)
    assert active_pids() == []  # lazily started


def test_rafs_score_with_workers_writes_the_same_rows(shared_data, tmp_path):
    rows = json.loads((shared_data / "processbench" / "math.json").read_text())[:12]
    data = tmp_path / "rows.json"
    data.write_text(json.dumps(rows))
    outputs = []
    for flags in ([], ["--workers", "2", "--timeout", "30"]):
        out = tmp_path / f"out{len(flags)}.jsonl"
        subprocess.run([sys.executable, "-m", "trainers", "score", str(data), "--out", str(out), *flags], cwd=ROOT,
                       check=True, capture_output=True, timeout=300)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1] and outputs[0].count(b"\n") == 12
    bad = subprocess.run([sys.executable, "-m", "trainers", "score", str(data), "--workers", "0"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and "--workers 0" in bad.stderr


def test_engine_rows_on_the_pool_equal_one_process(batch):
    from rewards.adapters.engines.core import Item, score_items
    from rewards.adapters.engines.verl import compute_score

    prompts, completions = batch
    items = [Item(p, c, "\\boxed{1}" if i % 3 else None, group=p) for i, (p, c) in enumerate(zip(prompts, completions))]
    assert score_items(items, num_workers=2, timeout_s=60) == score_items(items)
    kwargs = {"data_sources": ["math"] * 6, "solution_strs": completions[:6], "ground_truths": ["1"] * 6,
              "extra_infos": [{"question": p} for p in prompts[:6]]}
    assert compute_score(**kwargs, num_workers=2) == compute_score(**kwargs)


def test_a_task_the_worker_cannot_import_fails_alone():
    import types

    module = types.ModuleType("not_importable_in_a_worker")
    exec("def f(x):\n    return x\n", module.__dict__)
    sys.modules[module.__name__] = module
    try:
        with ScoringPool(1) as pool:
            out = pool.map(module.f, [(1,)])
            assert isinstance(out[0], Failure) and out[0].kind == "error" and "could not be read" in out[0].reason
            assert pool.map(operator.neg, [(5,)]) == [-5] and pool.replaced == 0  # the same worker goes on
    finally:
        del sys.modules[module.__name__]
