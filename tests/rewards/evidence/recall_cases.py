"""What the reward pays one completion, for the MATH-recall and irrational-answer tests (``test_math_recall_*.py``,
``test_irrational_answers.py``): its faithful accuracy and whether its answer is supported, scored uncached."""

from __future__ import annotations

from rewards import get_faithful_accuracy_reward, get_rafs_reward

_RAFS = get_rafs_reward(cache=False)
_FA = get_faithful_accuracy_reward(cache=False)


def faithful_accuracy(problem: str, completion: str, gold: str) -> float:
    result = _RAFS.score([problem], [completion], [gold])[0]
    return _FA.value(result, gold)


def rafs(problem: str, completion: str, gold: str) -> float:
    """``rafs_reward`` of one completion (``None`` as 0, as TRL sums it)."""
    value = _RAFS([problem], [completion], answer=[gold])[0]
    return 0.0 if value is None else float(value)


def supported(problem: str, completion: str, gold: str) -> bool:
    return bool(_RAFS.score([problem], [completion], [gold])[0].supported)
