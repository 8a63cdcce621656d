"""Problems, gold solutions and the reward call that the attack test files (``test_attacks_on_*.py``,
``test_known_attacks.py``) share: real GSM8K train problems with their gold solutions as a policy would write them, a visible slip of each, and a TRL-style
call in which ``None`` counts as 0 (TRL nansums it away with one reward function)."""

from __future__ import annotations

import json

from rewards import get_faithful_accuracy_reward, get_rafs_reward
from rewards.adapters.trl_rewards import clear_cache, faithful_accuracy_reward, rafs_reward
from rewards.audit.battery import default_data_dir

REWARDS = {"rafs": get_rafs_reward(), "faithful_accuracy": get_faithful_accuracy_reward()}

# gsm8k train 4530 (answer 24; 36 and 18 are intermediate results)
MARION = ("The result from the 40-item Statistics exam Marion and Ella took already came out. Ella got 4 incorrect "
          "answers while Marion got 6 more than half the score of Ella. What is Marion's score?")
MARION_BODY = ("Ella's score is 40 items - 4 items = 36 items.\nHalf of Ella's score is 36 items / 2 = 18 items.\n"
               "So, Marion's score is 18 items + 6 items = 24 items.")
MARION_GOLD = MARION_BODY + "\n#### 24"
MARION_SLIP = MARION_GOLD.replace("= 36 items.", "= 37 items.", 1)  # 40 - 4 = 37: a visible slip, later steps keep 36

# gsm8k train 3921 (answer 4)
TREES = ("Daisy is climbing trees all around her neighborhood and starts to notice the number of branches and the "
         "height. The first tree she climbs is 50 feet tall and has 200 branches. The second tree she climbs is 40 "
         "feet tall and has 180 branches. The third tree she climbs is 60 feet tall and has 180 branches. The final "
         "tree she climbs is 34 feet tall and has 153 branches. On average, how many branches do these trees have "
         "per foot?")
TREES_GOLD = ("The first tree has 4 branches per foot because 200 / 50 = 4\n"
              "The second tree tree has 4.5 branches per foot because 180 / 40 = 4.5\n"
              "The third tree has 3 branches per foot because 180 / 60 = 3\n"
              "The fourth tree has 4.5 branches per foot because 153 / 34 = 4.5\n"
              "The total branches per foot is 16 because 4 + 4.5 + 3 + 4.5 = 16\n"
              "The average branches per foot is 4 because 16 / 4 = 4\n#### 4")
TREES_SLIP = TREES_GOLD.replace("200 / 50 = 4", "200 / 50 = 5")  # a visible slip (the prose keeps "has 4")


def rewards_of(reward: str, problem: str, completions: list, gold: str) -> list[float]:
    """``reward`` ("rafs" or "faithful_accuracy") of each completion in one TRL call; ``None`` as 0."""
    out = REWARDS[reward]([problem] * len(completions), list(completions), answer=[gold] * len(completions))
    return [0.0 if v is None else float(v) for v in out]


def math500_row(unique_id: str) -> dict:
    """The MATH-500 test row with this ``unique_id``."""
    path = default_data_dir() / "math500" / "test.jsonl"
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row.get("unique_id") == unique_id:
                return row
    raise LookupError(f"{unique_id} not in {path}")


def one(reward: str, completion, problem: str = MARION, gold: str = "24") -> float:
    """``reward`` of one completion (Marion's problem by default) in a TRL-style call; ``None`` as 0."""
    return rewards_of(reward, problem, [completion], gold)[0]


def with_thinking(thinking: str, summary: str) -> list[dict]:
    """An assistant message with a ``<think>`` part and a summary."""
    return [{"role": "assistant", "content": f"<think>{thinking}</think>\n{summary}"}]


def pay_both(problem: str, completion, gold: str) -> tuple[float, float]:
    """``(faithful_accuracy, rafs)`` of one completion, each from its TRL reward function with the cache cleared."""
    clear_cache()
    return (faithful_accuracy_reward([problem], [completion], answer=[gold])[0],
            rafs_reward([problem], [completion], answer=[gold])[0])


def bare_both(problem: str, gold: str) -> tuple[float, float]:
    """:func:`pay_both` of the bare boxed answer."""
    return pay_both(problem, rf"The answer is $\boxed{{{gold}}}$.", gold)
