"""RAFS as TRL reward functions (GRPO, RLOO, Online DPO): one float or ``None`` per completion.

TRL 1.16 calls every reward function as ``reward(prompts=..., completions=..., completion_ids=..., **kwargs)``
with the batch *flattened*: each prompt's ``num_generations`` completions are consecutive and repeat the same
prompt; ``kwargs`` carry every dataset column (one value per completion), ``trainer_state``, and the logging
hooks ``log_metric(name: str, value: float)`` and ``log_extra(column: str, values: list)``. A ``None`` reward
means "unscorable" and is excluded from the advantage (TRL turns it into NaN and ``nansum``s).

Reward functions (module-level, picklable, ``__name__`` is the metric key ``rewards/<name>/mean``):

==============================  =========================================================================
``rafs_reward``                 ``RAFS / 100 = exp(Σ_m w_m · log(s_m + ε))`` over the available components;
                                ``None`` when RAFS abstains.
``faithful_accuracy_reward``    ``1`` correct and faithful, ``u`` (default 0.5) correct but unfaithful (a
                                suspect step: a silent failure), ``0`` wrong; ``None`` when the gold
                                answer is missing or unparseable. Needs a gold column (``answer`` or
                                ``solution``).
``rafs_step_validity_reward``   ``P_R = GM(q)^(1-λ) · min(q)^λ``
``rafs_support_reward``         ``S_RA = sqrt(p_imp · sens)``
``rafs_consensus_reward``       ``C_A = 1 - H(p̂)/log K`` over the completions of the same prompt
``rafs_stability_reward``       ``D_R``: mean pairwise claim similarity among traces with the modal answer
==============================  =========================================================================

Completions are grouped by identical prompt and gold, in order of first appearance (the rule of
:mod:`rewards.adapters.batching`, shared with the engines and ``rafs serve``), and each group is scored with
:func:`rewards.scoring.score.score_group`, so ``C_A`` and ``D_R`` see all ``K`` samples. When ``torch.distributed`` is
initialised with ``world_size > 1`` (multi-GPU GRPO can split a group across ranks), each call first gathers
``(prompt key, prompt, completion text, gold, rank, index)`` rows from every rank with ``all_gather_object``,
scores every full group, and keeps this rank's rows. All ranks must therefore call the reward function in the
same order (TRL does). Pass ``gather=False`` to a factory to score only the local rows.

The base class (:class:`RAFSRewardFunction`, :mod:`rewards.adapters.reward_base`), its pool side
(:mod:`rewards.adapters.reward_pool`) and the shared group cache (:mod:`rewards.adapters.reward_cache`) live in their
own modules; every name is importable from here.

The ``get_*`` factories build configured, picklable callables (plain classes, not ``nn.Module``) with the same
stable ``__name__``; :func:`get_reward_funcs` resolves registry names (open-r1 style).

Scoring pool: with ``num_workers > 1`` (default :func:`rewards.adapters.pool.default_num_workers`:
``RAFS_NUM_WORKERS``, else 1 under pytest, else the cores per rank) the groups are scored on a persistent pool of
worker processes (:mod:`rewards.adapters.pool`), never splitting a group, with results bit-identical to one
process and in order; each group has a deadline (``timeout_s``, default
:data:`~rewards.adapters.pool.DEFAULT_TIMEOUT_S`) past which its worker is killed and the completion that ran
too long gets the unscorable credit with a logged reason. With one worker and no ``timeout_s`` the groups are
scored in this process. ``asynchronous=True`` (or :func:`as_async`) gives the ``async`` form TRL awaits beside its
other async rewards.

Example
-------
>>> prompts = ["Tom has 3 boxes of 4 pens. How many pens?"] * 2
>>> completions = ["3 * 4 = 12 pens.\\n#### 12", "3 * 4 = 13 pens.\\n#### 12"]
>>> r = rafs_reward(prompts, completions)
>>> r[0] > r[1]
True
>>> faithful_accuracy_reward(prompts, completions, answer=["12", "12"])
[1.0, 0.5]
>>> rafs_reward(["?"], [""])          # nothing to check counts as no support: 0, not an exception
[0.0]
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

# the base class, its async form, the cache and the pool task live in their own modules (reward_base, reward_cache,
# reward_pool); they are imported here so that everything stays importable from rewards.adapters.trl_rewards
from rewards.adapters.reward_base import GOLD_COLUMNS, AsyncRewardFunction, RAFSRewardFunction, reward_config, as_async
from rewards.adapters.reward_cache import clear_cache
from rewards.adapters.reward_pool import score_group_task
from rewards.adapters.reward_rules import UNFAITHFUL_CREDIT, check_credit, faithful_accuracy
from rewards.checks.answers import answers_equivalent, gold_answer
from rewards.scoring.score import COMPONENTS, RAFSConfig, RAFSResult

__all__ = [
    "rafs_reward",
    "faithful_accuracy_reward",
    "rafs_step_validity_reward",
    "rafs_support_reward",
    "rafs_consensus_reward",
    "rafs_stability_reward",
    "get_rafs_reward",
    "get_faithful_accuracy_reward",
    "answer_correct",
    "get_rafs_step_validity_reward",
    "get_rafs_support_reward",
    "get_rafs_consensus_reward",
    "get_rafs_stability_reward",
    "get_reward_funcs",
    "version_of",
    "REWARD_FUNCS",
    "GOLD_COLUMNS",
    "RAFSRewardFunction",
    "RAFSReward",
    "FaithfulAccuracyReward",
    "ComponentReward",
    "AsyncRewardFunction",
    "as_async",
    "score_group_task",
    "clear_cache",
]

_COMPONENT_NAMES = {
    "P_R": "rafs_step_validity_reward",
    "S_RA": "rafs_support_reward",
    "C_A": "rafs_consensus_reward",
    "D_R": "rafs_stability_reward",
}

def _finish(reward: RAFSRewardFunction, asynchronous: bool) -> Any:
    return reward.as_async() if asynchronous else reward


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return sum(vals) / len(vals) if vals else None


def _rafs_metrics(results: Sequence[RAFSResult], golds: Sequence[str | None]) -> dict[str, float]:
    """Batch metrics: RAFS mean, abstention share, component means, and with gold the silent-failure share."""
    out: dict[str, float] = {}
    n = len(results)
    if not n:
        return out
    mean = _mean(r.score for r in results)
    if mean is not None:
        out["rafs_mean"] = mean
    out["abstain_rate"] = sum(r.status == "abstain" for r in results) / n
    for m in COMPONENTS:
        value = _mean(r.components.get(m) for r in results)
        if value is not None:
            out[f"{m}_mean"] = value
    with_gold = [r for r, g in zip(results, golds) if g is not None and gold_answer(g) is not None]
    if with_gold:
        out["silent_failure_rate"] = sum(r.failure_type == "silent_failure" for r in with_gold) / len(with_gold)
    return out


def answer_correct(result: RAFSResult, gold: str | None) -> bool | None:
    """Whether the completion's final answer equals the gold (math-verify's equivalence, as the scorer judged it);
    ``False`` without a final answer; ``None`` without a usable gold.

    >>> from rewards import score_trace
    >>> answer_correct(score_trace("3 boxes of 4 pens", "3 * 4 = 12 pens.\\n#### 12"), "13")
    False
    """
    ref = gold_answer(gold) if gold is not None else None
    if ref is None:
        return None
    if result.correct is not None:
        return result.correct
    return answers_equivalent(result.answer, ref) if result.answer is not None else False


class RAFSReward(RAFSRewardFunction):
    """``RAFS / 100`` per completion (``None`` when RAFS abstains).

    RAFS reads no gold: added to an accuracy term as it is, it pays a wrong answer reached by well-formed steps about
    what a faithful chain earns. ``correct_only=True`` pays ``0`` to a completion whose final answer a gold column
    shows wrong (or missing), and ``RAFS / 100`` otherwise — with no usable gold, RAFS as it is.

    Logs (prefix ``<name>/``): ``rafs_mean``, ``abstain_rate``, ``P_R_mean`` … ``D_R_mean``,
    ``silent_failure_rate`` (only with a gold column), ``internal_errors`` (see :class:`RAFSRewardFunction`); per
    completion: ``rafs``, ``status``, ``suspect_step``.
    """

    def __init__(self, name: str = "rafs_reward", *, correct_only: bool = False, **kwargs: Any) -> None:
        if not isinstance(correct_only, bool):
            raise TypeError(f"correct_only={correct_only!r} must be True or False.")
        super().__init__(name, **kwargs)
        self.correct_only = correct_only

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "correct_only": self.correct_only}

    def value(self, result: RAFSResult, gold: str | None) -> float | None:
        if self.correct_only and answer_correct(result, gold) is False:
            return 0.0
        return result.reward

    def metrics(self, results, rewards, golds):
        return _rafs_metrics(results, golds)

    def extras(self, results, rewards):
        return {
            "rafs": [None if r.score is None else round(r.score, 4) for r in results],
            "status": [r.status for r in results],
            "suspect_step": [r.suspect_step for r in results],
        }


class FaithfulAccuracyReward(RAFSRewardFunction):
    """Accuracy that withholds part of the credit unless the answer is faithfully derived
    (:func:`rewards.adapters.reward_rules.faithful_accuracy`).

    ``r = 1`` correct and faithful (derived from the problem's quantities through verified steps, nothing ungrounded
    on the way, no suspect step); ``r = u`` (``unfaithful_credit``) correct but unfaithful — a suspect step (a
    silent failure), an ungrounded quantity feeding the answer, RAFS below ``min_rafs`` when that is set, or no
    checked derivation at all (``unverified_credit``, default ``u``: hidden or restated work earns no more than a
    visible slip); ``r = 0`` wrong or no answer; ``None`` when the gold answer is missing or unparseable.

    Logs (prefix ``<name>/``): ``accuracy``, ``silent_failure_rate``, ``abstain_rate``, ``unsupported_rate``,
    ``internal_errors``; per completion: ``correct``, ``failure_type``.
    """

    needs_gold = True

    def __init__(self, name: str = "faithful_accuracy_reward", *, unfaithful_credit: float = UNFAITHFUL_CREDIT,
                 unverified_credit: float | None = None, min_rafs: float | None = None, **kwargs: Any) -> None:
        unfaithful_credit = check_credit("unfaithful_credit", unfaithful_credit)
        if unverified_credit is not None:
            unverified_credit = check_credit("unverified_credit", unverified_credit)
        if min_rafs is not None and not 0.0 <= float(min_rafs) <= 100.0:
            raise ValueError(f"min_rafs={min_rafs!r} must be in [0, 100] (a RAFS score) or None.")
        super().__init__(name, **kwargs)
        self.unfaithful_credit = unfaithful_credit
        self.unverified_credit = unverified_credit
        self.min_rafs = None if min_rafs is None else float(min_rafs)

    def correct(self, result: RAFSResult, gold: str | None) -> bool | None:
        """Whether the completion's final answer equals the gold; ``None`` without a usable gold."""
        return answer_correct(result, gold)

    def why_none(self, result: RAFSResult, gold: str | None) -> str:
        return f"no usable gold answer in {gold!r:.80}" if gold is not None else "no gold answer"

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "unfaithful_credit": self.unfaithful_credit,
                "unverified_credit": self.unverified_credit, "min_rafs": self.min_rafs}

    def value(self, result: RAFSResult, gold: str | None) -> float | None:
        return faithful_accuracy(result, self.correct(result, gold), unfaithful_credit=self.unfaithful_credit,
                                 unverified_credit=self.unverified_credit, min_rafs=self.min_rafs)

    def metrics(self, results, rewards, golds):
        out: dict[str, float] = {}
        n = len(results)
        if not n:
            return out
        out["abstain_rate"] = sum(r.status == "abstain" for r in results) / n
        out["unsupported_rate"] = sum(not r.supported for r in results) / n
        judged = [(r, g) for r, g in zip(results, golds) if g is not None and gold_answer(g) is not None]
        if judged:
            out["accuracy"] = sum(bool(self.correct(r, g)) for r, g in judged) / len(judged)
            out["silent_failure_rate"] = sum(r.failure_type == "silent_failure" for r, _ in judged) / len(judged)
        return out

    def extras(self, results, rewards):
        return {
            "correct": [None if w is None else w > 0.0 for w in rewards],
            "failure_type": [r.failure_type for r in results],
        }


class ComponentReward(RAFSRewardFunction):
    """One RAFS component (``P_R``, ``S_RA``, ``C_A`` or ``D_R``) on [0, 1]; ``None`` where it is undefined.

    ``C_A`` and ``D_R`` need at least two completions of the same prompt (a GRPO group); ``S_RA`` abstains
    when no derived quantity links the chain to the answer. No logging by default: TRL already logs
    ``rewards/<name>/mean``.
    """

    def __init__(self, component: str, name: str | None = None, **kwargs: Any) -> None:
        if component not in COMPONENTS:
            raise ValueError(f"component={component!r} is not a RAFS component; use one of {list(COMPONENTS)}.")
        kwargs.setdefault("log_metrics", False)
        kwargs.setdefault("log_extras", False)
        super().__init__(name or _COMPONENT_NAMES[component], **kwargs)
        self.component = component

    def settings(self) -> dict[str, Any]:
        return {**super().settings(), "component": self.component}

    def value(self, result: RAFSResult, gold: str | None) -> float | None:
        if result.status == "abstain":
            # nothing shown: no step validity and no support to pay (C_A and D_R stay undefined: they compare a
            # group's answers and claims, not this completion's reasoning)
            no_support = result.score == 0.0 and self.component in ("P_R", "S_RA")
            return 0.0 if no_support else None
        v = result.components.get(self.component)
        return None if v is None else float(v)

    def why_none(self, result: RAFSResult, gold: str | None) -> str:
        if result.status == "abstain":
            return "; ".join(result.reasons) or "RAFS abstained"
        if self.component in ("C_A", "D_R"):
            return (f"{self.component} is undefined: it needs at least 2 completions of the same prompt"
                    + (" reaching the modal answer" if self.component == "D_R" else ""))
        return f"{self.component} abstained: " + ("; ".join(result.reasons) or "nothing to check")

    def metrics(self, results, rewards, golds):
        n = len(results)
        return {"undefined_rate": sum(r is None for r in rewards) / n} if n else {}


# -- factories ------------------------------------------------------------------------------------------------------

def get_rafs_reward(config: RAFSConfig | Mapping[str, Any] | None = None, *, gold_column: str | None = None,
                    name: str = "rafs_reward", asynchronous: bool = False, correct_only: bool = False,
                    **kwargs: Any) -> RAFSReward:
    """A configured ``rafs_reward``: ``RAFS/100`` per completion, ``None`` on abstention.

    ``correct_only=True``: ``0`` where the gold column shows the final answer wrong (the form to add to an accuracy
    term: ``accuracy + rafs`` then pays ``accuracy × (1 + RAFS/100)``, and no wrong answer earns for well-formed
    steps). Keyword arguments: see :class:`RAFSRewardFunction` (``strict``, ``gather``, ``log_metrics``,
    ``log_extras``, ``verifier``, ``cache``, ``num_workers``, ``timeout_s``); ``asynchronous=True`` returns the
    ``async`` form (:class:`AsyncRewardFunction`).

    >>> get_rafs_reward(num_workers=4, timeout_s=5.0).workers()   # a pool of 4 starts on the first call
    4

    >>> reward = get_rafs_reward({"tau_accept": 70.0})
    >>> reward.__name__
    'rafs_reward'
    >>> reward(["Ann has 2 bags of 5 apples."], ["2 * 5 = 10 apples.\\n#### 10"])[0] > 0.9
    True
    >>> misread = ["2 + 5 = 7 apples.\\n#### 7"]                 # well-formed steps, the wrong operation
    >>> rafs_reward(["Ann has 2 bags of 5 apples."], misread, answer=["10"])[0] > 0.5
    True
    >>> get_rafs_reward(correct_only=True)(["Ann has 2 bags of 5 apples."], misread, answer=["10"])
    [0.0]
    """
    return _finish(RAFSReward(name, config=config, gold_column=gold_column, correct_only=correct_only, **kwargs),
                   asynchronous)


def get_faithful_accuracy_reward(unfaithful_credit: float = UNFAITHFUL_CREDIT,
                                 config: RAFSConfig | Mapping[str, Any] | None = None,
                                 *, gold_column: str | None = None, unverified_credit: float | None = None,
                                 min_rafs: float | None = None, name: str = "faithful_accuracy_reward",
                                 asynchronous: bool = False, **kwargs: Any) -> FaithfulAccuracyReward:
    """A configured ``faithful_accuracy_reward`` (1 / ``unfaithful_credit`` / 0; ``None`` without gold).

    >>> reward = get_faithful_accuracy_reward(unfaithful_credit=0.2)
    >>> reward(["3 boxes of 4 pens"], ["3 * 4 = 13 pens.\\n#### 12"], solution=["12"])
    [0.2]
    """
    return _finish(FaithfulAccuracyReward(name, unfaithful_credit=unfaithful_credit,
                                          unverified_credit=unverified_credit, min_rafs=min_rafs, config=config,
                                          gold_column=gold_column, **kwargs), asynchronous)


def _component_factory(component: str) -> Callable[..., ComponentReward]:
    default_name = _COMPONENT_NAMES[component]

    def factory(config: RAFSConfig | Mapping[str, Any] | None = None, *, gold_column: str | None = None,
                name: str = default_name, asynchronous: bool = False, **kwargs: Any) -> ComponentReward:
        return _finish(ComponentReward(component, name, config=config, gold_column=gold_column, **kwargs),
                       asynchronous)

    factory.__name__ = factory.__qualname__ = f"get_{default_name}"
    factory.__doc__ = f"A configured ``{default_name}`` (the RAFS component ``{component}`` on [0, 1])."
    return factory


get_rafs_step_validity_reward = _component_factory("P_R")
get_rafs_support_reward = _component_factory("S_RA")
get_rafs_consensus_reward = _component_factory("C_A")
get_rafs_stability_reward = _component_factory("D_R")

# -- module-level reward functions (picklable by reference) -----------------------------------------------------------

_DEFAULTS: dict[str, RAFSRewardFunction] = {
    "rafs_reward": get_rafs_reward(),
    "faithful_accuracy_reward": get_faithful_accuracy_reward(),
    "rafs_step_validity_reward": get_rafs_step_validity_reward(),
    "rafs_support_reward": get_rafs_support_reward(),
    "rafs_consensus_reward": get_rafs_consensus_reward(),
    "rafs_stability_reward": get_rafs_stability_reward(),
}


def rafs_reward(prompts: Sequence[Any] | None, completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
    """``RAFS/100 = exp(Σ_m w_m · log(s_m + ε))`` per completion, grouped by prompt; ``None`` on abstention."""
    return _DEFAULTS["rafs_reward"](prompts, completions, **kwargs)


def faithful_accuracy_reward(prompts: Sequence[Any] | None, completions: Sequence[Any],
                             **kwargs: Any) -> list[float | None]:
    """1.0 correct and faithful, 0.5 correct with a suspect step, 0.0 wrong, ``None`` without a gold answer.

    The gold comes from the ``answer`` column, else ``solution``, else ``gold``.
    """
    return _DEFAULTS["faithful_accuracy_reward"](prompts, completions, **kwargs)


def rafs_step_validity_reward(prompts: Sequence[Any] | None, completions: Sequence[Any],
                              **kwargs: Any) -> list[float | None]:
    """``P_R = GM(q)^(1-λ) · min(q)^λ`` per completion (``None`` when unscorable)."""
    return _DEFAULTS["rafs_step_validity_reward"](prompts, completions, **kwargs)


def rafs_support_reward(prompts: Sequence[Any] | None, completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
    """``S_RA = sqrt(p_imp · sens)`` per completion (``None`` when it abstains)."""
    return _DEFAULTS["rafs_support_reward"](prompts, completions, **kwargs)


def rafs_consensus_reward(prompts: Sequence[Any] | None, completions: Sequence[Any],
                          **kwargs: Any) -> list[float | None]:
    """``C_A = 1 - H(p̂)/log K`` over the completions of the same prompt (``None`` for K = 1)."""
    return _DEFAULTS["rafs_consensus_reward"](prompts, completions, **kwargs)


def rafs_stability_reward(prompts: Sequence[Any] | None, completions: Sequence[Any],
                          **kwargs: Any) -> list[float | None]:
    """``D_R``: mean pairwise claim similarity among the group's traces that reach the modal answer."""
    return _DEFAULTS["rafs_stability_reward"](prompts, completions, **kwargs)


def version_of(reward_fn: Any) -> str | None:
    """The reward version of a reward function: a factory-built one's :attr:`RAFSRewardFunction.reward_version`, the
    default instance's for the module-level functions, ``None`` for a reward that is not ours."""
    version = getattr(reward_fn, "reward_version", None)
    if isinstance(version, str):
        return version
    default = _DEFAULTS.get(getattr(reward_fn, "__name__", None))
    if default is not None and getattr(reward_fn, "__module__", None) == __name__:
        return default.reward_version
    return None


# -- registry ---------------------------------------------------------------------------------------------------------

REWARD_FUNCS: dict[str, Callable[..., list[float | None]]] = {
    "rafs": rafs_reward,
    "faithful_accuracy": faithful_accuracy_reward,
    "rafs_step_validity": rafs_step_validity_reward,
    "rafs_support": rafs_support_reward,
    "rafs_consensus": rafs_consensus_reward,
    "rafs_stability": rafs_stability_reward,
}
"""Registry names -> default reward functions (``get_reward_funcs`` also accepts each ``__name__``)."""

_FACTORIES: dict[str, Callable[..., RAFSRewardFunction]] = {
    "rafs": get_rafs_reward,
    "faithful_accuracy": get_faithful_accuracy_reward,
    "rafs_step_validity": get_rafs_step_validity_reward,
    "rafs_support": get_rafs_support_reward,
    "rafs_consensus": get_rafs_consensus_reward,
    "rafs_stability": get_rafs_stability_reward,
}


def _resolve(name: Any) -> str:
    if isinstance(name, str):
        key = name.strip()
        if key in REWARD_FUNCS:
            return key
        for reg, func in REWARD_FUNCS.items():
            if key == func.__name__:
                return reg
    raise ValueError(f"unknown reward function {name!r}; known names: {sorted(REWARD_FUNCS)} "
                     f"(or their function names, e.g. 'rafs_reward').")


def get_reward_funcs(names: Sequence[str] | str, config: Mapping[str, Any] | RAFSConfig | None = None,
                     **kwargs: Any) -> list[Callable[..., list[float | None]]]:
    """Reward callables for registry ``names`` (a list, or a comma-separated string), in order.

    Without ``config`` and ``kwargs`` the picklable module-level functions are returned; otherwise configured
    instances with the same ``__name__``. ``kwargs`` go to every factory (e.g. ``gold_column``, ``strict``);
    ``unfaithful_credit`` / ``unverified_credit`` / ``min_rafs`` go only to ``faithful_accuracy``.

    >>> [f.__name__ for f in get_reward_funcs(["rafs", "faithful_accuracy"])]
    ['rafs_reward', 'faithful_accuracy_reward']
    >>> get_reward_funcs(["accuracy"])
    Traceback (most recent call last):
    ...
    ValueError: unknown reward function 'accuracy'; known names: ['faithful_accuracy', 'rafs', 'rafs_consensus', \
'rafs_stability', 'rafs_step_validity', 'rafs_support'] (or their function names, e.g. 'rafs_reward').
    """
    if isinstance(names, str):
        names = [n for n in names.split(",") if n.strip()]
    keys = [_resolve(n) for n in names]
    if config is None and not kwargs:
        return [REWARD_FUNCS[k] for k in keys]
    cfg = reward_config(config)
    only_accuracy = {k: kwargs.pop(k) for k in ("unfaithful_credit", "unverified_credit", "min_rafs") if k in kwargs}
    funcs: list[Callable[..., list[float | None]]] = []
    for key in keys:
        extra = only_accuracy if key == "faithful_accuracy" else {}
        funcs.append(_FACTORIES[key](config=cfg, **kwargs, **extra))
    return funcs
