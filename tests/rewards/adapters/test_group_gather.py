"""A GRPO group split across two ranks (gloo, CPU): the group components are computed over the whole group.

The test runs this file as a script in a subprocess (hard timeout), which starts two ranks with
``torch.multiprocessing.spawn``; each rank scores its half of a flattened batch and writes its rewards to JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PROBLEMS = [
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. "
    "How many clips did Natalia sell altogether in April and May?",
    "Weng earns $12 an hour for babysitting. Yesterday, she did 50 minutes of babysitting. How much did she earn?",
    "Tom has 3 boxes of 4 pens. How many pens does he have?",
]
GROUPS = [
    ["48/2 = 24 in May.\n48+24 = 72 in total.\n#### 72", "48/2 = 25 in May.\n48+24 = 72 in total.\n#### 72",
     "48/2 = 24 in May.\n48+24 = 70 in total.\n#### 70", "Half of 48 is 48/2 = 24.\n24+48 = 72.\n#### 72"],
    ["12/60 = 0.2 per minute.\n0.2 x 50 = 10.\n#### 10", "12/60 = 0.2 per minute.\n0.2 * 50 = 10 dollars.\n#### 10",
     "12 * 50 = 600.\n#### 600", "12/60 = 0.2 per minute, so 50 * 0.2 = 10.\n#### 10"],
    ["3 * 4 = 12 pens.\n#### 12", "4 * 3 = 12.\n#### 12", "3 + 4 = 7 pens.\n#### 7", "3 * 4 = 12.\n#### 12"],
]
NUM_GENERATIONS = 4
# The flattened batch as TRL builds it: each prompt repeated NUM_GENERATIONS times, then split evenly across
# ranks. With 12 rows and 2 ranks, rank 0 holds rows 0-5 and rank 1 rows 6-11: the second group is split 2/2.
PROMPTS = [p for p in PROBLEMS for _ in range(NUM_GENERATIONS)]
COMPLETIONS = [c for group in GROUPS for c in group]
ANSWERS = [a for a in ("72", "10", "12") for _ in range(NUM_GENERATIONS)]
WORLD = 2


def _worker(rank: int, world: int, store: str, out_dir: str) -> None:
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world)
    try:
        from rewards.adapters.trl_rewards import (get_rafs_consensus_reward, rafs_consensus_reward, rafs_reward,
                                         rafs_stability_reward)

        per_rank = len(PROMPTS) // world
        sl = slice(rank * per_rank, (rank + 1) * per_rank)
        prompts, completions, answers = PROMPTS[sl], COMPLETIONS[sl], ANSWERS[sl]
        local_only = get_rafs_consensus_reward(gather=False)
        out = {
            "rank": rank,
            "C_A": rafs_consensus_reward(prompts, completions, answer=answers),
            "D_R": rafs_stability_reward(prompts, completions, answer=answers),
            "rafs": rafs_reward(prompts, completions, answer=answers),
            # a second call hits the shared cache on this rank; it must still join the collective gather
            "rafs_again": rafs_reward(prompts, completions, answer=answers),
            "C_A_local_only": local_only(prompts, completions, answer=answers),
        }
        dist.barrier()
        Path(out_dir, f"rank{rank}.json").write_text(json.dumps(out))
    finally:
        dist.destroy_process_group()


def _main(out_dir: str) -> None:
    import torch.multiprocessing as mp

    store = os.path.join(out_dir, "store")
    mp.spawn(_worker, args=(WORLD, store, out_dir), nprocs=WORLD, join=True)


def _close(a, b) -> bool:
    return all((x is None and y is None) or (x is not None and y is not None and abs(x - y) < 1e-9)
               for x, y in zip(a, b, strict=True))


def test_each_rank_sees_the_whole_group(tmp_path):
    env = {**os.environ, "WANDB_MODE": "disabled", "OMP_NUM_THREADS": "1"}
    root = Path(__file__).resolve().parents[3]
    env["PYTHONPATH"] = os.pathsep.join([str(root), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, __file__, str(tmp_path)], env=env, capture_output=True, text=True,
                          timeout=120, cwd=root)
    assert proc.returncode == 0, proc.stderr[-3000:]
    ranks = [json.loads((tmp_path / f"rank{r}.json").read_text()) for r in range(WORLD)]

    from rewards.adapters.trl_rewards import clear_cache, rafs_consensus_reward, rafs_reward, rafs_stability_reward

    clear_cache()
    whole_ca = rafs_consensus_reward(PROMPTS, COMPLETIONS, answer=ANSWERS)  # one process, whole batch
    whole_dr = rafs_stability_reward(PROMPTS, COMPLETIONS, answer=ANSWERS)
    whole_rafs = rafs_reward(PROMPTS, COMPLETIONS, answer=ANSWERS)
    per_rank = len(PROMPTS) // WORLD
    for r, res in enumerate(ranks):
        sl = slice(r * per_rank, (r + 1) * per_rank)
        assert _close(res["C_A"], whole_ca[sl]), (r, res["C_A"], whole_ca[sl])
        assert _close(res["D_R"], whole_dr[sl])
        assert _close(res["rafs"], whole_rafs[sl]) and _close(res["rafs_again"], whole_rafs[sl])
    # the split group (rows 4-7: answers 10, 10 | 600, 10): without the gather each half sees a different group
    assert ranks[0]["C_A_local_only"][4] == pytest.approx(1.0)
    assert whole_ca[4] < 1.0 and ranks[0]["C_A"][4] == pytest.approx(whole_ca[4])
    assert ranks[1]["C_A_local_only"][0] != pytest.approx(whole_ca[6])


if __name__ == "__main__":
    _main(sys.argv[1])
