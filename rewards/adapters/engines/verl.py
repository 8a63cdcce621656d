"""RAFS as a verl custom reward function: ``compute_score``, per sample or per batch.

verl (volcengine/verl) loads a custom reward function by path and name (``verl/trainer/ppo/reward.py``,
``get_custom_reward_fn``) and calls it from its reward manager:

* per sample — ``NaiveRewardManager`` / ``DAPORewardManager`` (``verl/workers/reward_manager/naive.py``) and the
  reward loop of verl >= 0.6 (``verl/experimental/reward_loop/reward_manager/naive.py``) call
  ``compute_score(data_source=, solution_str=, ground_truth=, extra_info=)`` and take a float or a dict with
  ``"score"`` (the other keys are logged as ``reward_extra_info``);
* per batch — ``BatchRewardManager`` (``verl/workers/reward_manager/batch.py``, ``reward_model.reward_manager=batch``)
  calls ``compute_score(data_sources=, solution_strs=, ground_truths=, extra_infos=)`` and takes a list;
* ``PrimeRewardManager`` (``verl/workers/reward_manager/prime.py``) calls it positionally in a process pool and
  takes numbers only: use ``pkg://`` (picklable) and ``reward_kwargs.return_dict=false``.

This one function answers both (it dispatches on the arguments). Config, verl >= 0.7 (``reward.`` group)::

    reward.custom_reward_function.path=pkg://rewards.adapters.engines.verl reward.custom_reward_function.name=compute_score

and older verl (top-level group, file paths only)::

    custom_reward_function.path=$(python -c 'import rewards.adapters.engines.verl as m; print(m.__file__)') \\
    custom_reward_function.name=compute_score reward_model.reward_manager=batch

Keyword options go through ``custom_reward_function.reward_kwargs`` (verl merges them into every call):
``mode`` (``auto`` | ``faithful_accuracy`` | ``rafs``, see :mod:`rewards.adapters.engines.core`), ``rafs_config`` (a dict
of :class:`~rewards.scoring.score.RAFSConfig` fields), ``return_dict`` (``False`` returns bare floats), and
``num_workers`` / ``timeout_s`` (score on a pool of worker processes with a deadline per group,
:mod:`rewards.adapters.pool`; default: in this process, no deadline).

**The problem text.** verl does not pass the prompt to ``compute_score``. It is taken from ``extra_info``:
``question``, else ``problem``, else ``prompt`` — verl's own ``examples/data_preprocess/gsm8k.py`` writes
``extra_info["question"]``. Without it the trace is scored without the problem: P_R still checks every stated
equation, but operands cannot be grounded in the problem, so invented quantities go unnoticed (grounding
degrades) — put the question into ``extra_info`` when you preprocess the data.

**Groups.** Per-sample calls see one rollout: C_A and D_R are unavailable (single-trace RAFS from P_R and S_RA).
A batched call carries the whole rollout batch, so the ``rollout.n`` responses of a prompt are scored as a group
(C_A, D_R) when they can be recognised: verl keeps the rollout ``uid`` in ``non_tensor_batch["uid"]`` and does
*not* pass it to ``compute_score``, so the group key is ``extra_info["uid"]`` if your data provides one, else
``(data_source, extra_info["index"])`` (verl's preprocessors write ``index``), else ``(data_source, problem
text)``; with none of these every response is scored alone.

The returned dict always has the same keys (verl's reward loop builds its arrays from the first item's keys):
``score`` (the reward), ``acc`` (1.0/0.0 correct, ``None`` without a ground truth), ``rafs`` (0-100 or
``None``), ``status``, ``failure_type``, ``suspect_step``, ``correct``, ``P_R``, ``S_RA``, ``C_A``, ``D_R``.

>>> r = compute_score("openai/gsm8k", "3 * 4 = 12 pens.\\n#### 12", "12",
...                   extra_info={"question": "Tom has 3 boxes of 4 pens. How many pens?"})
>>> r["score"], r["status"], r["correct"]
(1.0, 'accept', True)
>>> [round(s["score"], 2) for s in compute_score(data_sources=["gsm8k"] * 2,
...      solution_strs=["3 * 4 = 12\\n#### 12", "3 * 4 = 13\\n#### 13"], ground_truths=["12", "12"],
...      extra_infos=[{"question": "3 boxes of 4 pens?", "index": 0}] * 2)]
[1.0, 0.0]
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from rewards.adapters.engines.core import Item, coerce_gold, score_items

__all__ = ["compute_score", "compute_score_batch", "problem_of", "group_of", "EXTRA_KEYS"]

log = logging.getLogger(__name__)

EXTRA_KEYS = ("score", "acc", "rafs", "status", "failure_type", "suspect_step", "correct", "P_R", "S_RA", "C_A",
              "D_R")
"""The keys of every dict ``compute_score`` returns, in this order."""

_PROBLEM_KEYS = ("question", "problem", "prompt")
# Keyword arguments verl itself may add to a compute_score call (reward model routing, sandbox); not ours.
_VERL_KWARGS = frozenset({"reward_router_address", "reward_model_tokenizer", "sandbox_fusion_url",
                          "concurrent_semaphore", "memory_limit_mb", "num_turns"})
_warned: set[str] = set()


def problem_of(extra_info: Any) -> Any:
    """The problem text in a verl ``extra_info`` (``question``, ``problem`` or ``prompt``), else ``None``.

    >>> problem_of({"question": "How many pens?", "index": 3}), problem_of(None)
    ('How many pens?', None)
    """
    if not isinstance(extra_info, Mapping):
        return None
    for key in _PROBLEM_KEYS:
        value = extra_info.get(key)
        if value is not None and not isinstance(value, str) and hasattr(value, "tolist"):
            value = value.tolist()  # parquet lists arrive as numpy arrays
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, (list, tuple)) and value and all(isinstance(m, Mapping) for m in value):
            return list(value)  # chat messages
    return None


def group_of(data_source: Any, extra_info: Any) -> tuple | None:
    """The rollout-group key of one batch entry (see the module doc), or ``None`` when there is none.

    >>> group_of("gsm8k", {"index": 7}), group_of("gsm8k", {"uid": "a1", "index": 7}), group_of("gsm8k", {})
    (('gsm8k', 'index', '7'), ('uid', 'a1'), None)
    """
    if not isinstance(extra_info, Mapping):
        return None
    if extra_info.get("uid") is not None:
        return ("uid", str(extra_info["uid"]))
    if extra_info.get("index") is not None:
        return (str(data_source), "index", str(extra_info["index"]))
    problem = problem_of(extra_info)
    if isinstance(problem, str):
        return (str(data_source), "problem", problem)
    return None


def _options(kwargs: dict[str, Any]) -> tuple[str, Any, bool, dict[str, Any]]:
    mode = kwargs.pop("mode", "auto")
    rafs_config = kwargs.pop("rafs_config", None)
    return_dict = bool(kwargs.pop("return_dict", True))
    pool = {k: kwargs.pop(k) for k in ("num_workers", "timeout_s") if k in kwargs}
    unknown = sorted(set(kwargs) - _VERL_KWARGS)
    if unknown and repr(unknown) not in _warned:
        _warned.add(repr(unknown))
        log.warning("rafs compute_score ignores keyword argument(s) %s; it takes mode, rafs_config, return_dict, "
                    "num_workers, timeout_s", unknown)
    return mode, rafs_config, return_dict, pool


def _verl_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    comps = row["components"]
    correct = row["correct"]
    return {
        "score": row["reward"],
        "acc": None if correct is None else float(correct),
        "rafs": row["rafs"],
        "status": row["status"],
        "failure_type": row["failure_type"],
        "suspect_step": row["suspect_step"],
        "correct": correct,
        "P_R": comps.get("P_R"),
        "S_RA": comps.get("S_RA"),
        "C_A": comps.get("C_A"),
        "D_R": comps.get("D_R"),
    }


def compute_score_batch(data_sources: Sequence[Any], solution_strs: Sequence[Any], ground_truths: Sequence[Any],
                        extra_infos: Sequence[Any] | None = None, **kwargs: Any) -> list[dict[str, Any] | float]:
    """The batched form (``BatchRewardManager``): one result per response, in order; groups as the module doc says.

    Raises ``ValueError`` when the four sequences differ in length (a wiring error, not model output).
    """
    mode, rafs_config, return_dict, pool = _options(dict(kwargs))
    n = len(solution_strs)
    extra_infos = [None] * n if extra_infos is None else list(extra_infos)
    lengths = {"data_sources": len(data_sources), "solution_strs": n, "ground_truths": len(ground_truths),
               "extra_infos": len(extra_infos)}
    if len(set(lengths.values())) != 1:
        raise ValueError(f"compute_score got sequences of different lengths {lengths}; verl passes one entry per "
                         "response in each of data_sources, solution_strs, ground_truths and extra_infos.")
    items = [Item(problem_of(extra_infos[i]), solution_strs[i], coerce_gold(ground_truths[i]),
                  group_of(data_sources[i], extra_infos[i])) for i in range(n)]
    rows = score_items(items, config=rafs_config, mode=mode, **pool)
    return [_verl_dict(r) if return_dict else r["reward"] for r in rows]


def compute_score(data_source: Any = None, solution_str: Any = None, ground_truth: Any = None,
                  extra_info: Any = None, *, data_sources: Sequence[Any] | None = None,
                  solution_strs: Sequence[Any] | None = None, ground_truths: Sequence[Any] | None = None,
                  extra_infos: Sequence[Any] | None = None, **kwargs: Any) -> dict[str, Any] | float | list:
    """verl's ``compute_score``: the per-sample form returns a dict (or a float with ``return_dict=False``), the
    batched form (``solution_strs=`` given) a list of them. See the module doc for config, groups and keys."""
    if solution_strs is not None:
        return compute_score_batch(data_sources if data_sources is not None else [None] * len(solution_strs),
                                   solution_strs,
                                   ground_truths if ground_truths is not None else [None] * len(solution_strs),
                                   extra_infos, **kwargs)
    if data_sources is not None or ground_truths is not None or extra_infos is not None:
        raise ValueError("compute_score got data_sources/ground_truths/extra_infos without solution_strs; the "
                         "batched form needs solution_strs=[...] (one per response).")
    mode, rafs_config, return_dict, pool = _options(dict(kwargs))
    row = score_items([Item(problem_of(extra_info), solution_str, coerce_gold(ground_truth))],
                      config=rafs_config, mode=mode, **pool)[0]
    return _verl_dict(row) if return_dict else row["reward"]
