"""A faithful trace's group reward does not collapse because its siblings show no work: a bare answer still states
an answer (it counts in C_A) and has no reasoning (it is left out of D_R)."""

import pytest

from rewards import get_rafs_reward
from rewards.scoring.score import RAFSConfig, score_group

MARION = ("The result from the 40-item Statistics exam Marion and Ella took already came out. Ella got 4 incorrect "
          "answers while Marion got 6 more than half the score of Ella. What is Marion's score?")
GOLD = ("Ella's score is 40 items - 4 items = 36 items.\nHalf of Ella's score is 36 items / 2 = 18 items.\n"
        "So, Marion's score is 18 items + 6 items = 24 items.\n#### 24")


@pytest.mark.parametrize("siblings", [["#### 24"], ["#### 24"] * 7, ["The answer is 24.\n#### 24"] * 3])
def test_bare_siblings_neither_crush_the_faithful_trace_nor_earn_anything(siblings):
    reward = get_rafs_reward(cache=False)
    group = [GOLD, *siblings]
    values = reward([MARION] * len(group), group, answer=["24"] * len(group))
    alone = reward([MARION] * 8, [GOLD] * 8, answer=["24"] * 8)[0]
    assert values[0] >= 0.95 * alone and all(v == 0.0 for v in values[1:])


def test_stability_is_over_the_members_that_derive_something():
    results = score_group(MARION, [GOLD, "#### 24"], gold="24", config=RAFSConfig(missing_evidence="no_support"))
    assert results[0].components["D_R"] is None and results[0].components["C_A"] == 1.0
    both = score_group(MARION, [GOLD, GOLD, "#### 24"], gold="24", config=RAFSConfig(missing_evidence="no_support"))
    assert both[0].components["D_R"] == 1.0


def test_member_mode_gives_a_bare_answer_no_stability():
    cfg = RAFSConfig(missing_evidence="no_support", group_mode="member")
    results = score_group(MARION, [GOLD, GOLD, "#### 24"], gold="24", config=cfg)
    assert results[2].components["D_R"] is None and results[2].score == 0.0  # nothing shown, nothing earned
    assert results[0].components["D_R"] == 1.0 and results[0].components["C_A"] == 1.0  # the bare one agrees
