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

import asyncio
import hashlib
import json
import logging
import sys
import threading
from collections import OrderedDict
from dataclasses import asdict
from typing import Any, Callable, Iterable, Mapping, Sequence

from rewards.checks.answers import answers_equivalent, gold_answer
from rewards.checks.arithmetic import error_counts
from rewards.adapters.batching import group_indices
from rewards.adapters.pool import (DEFAULT_TIMEOUT_S, Failure, check_timeout, check_workers, default_num_workers,
                                   shared_pool, unscorable)
from rewards.adapters.reward_rules import UNFAITHFUL_CREDIT, check_credit, faithful_accuracy
from rewards.adapters.reward_version import reward_version
from rewards.scoring.score import COMPONENTS, RAFSConfig, RAFSResult, score_group
from rewards.parsing.trace import completion_parts, completion_text

__all__ = [
    "rafs_reward",
    "faithful_accuracy_reward",
    "rafs_step_validity_reward",
    "rafs_support_reward",
    "rafs_consensus_reward",
    "rafs_stability_reward",
    "get_rafs_reward",
    "get_faithful_accuracy_reward",
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
]

log = logging.getLogger(__name__)

GOLD_COLUMNS: tuple[str, ...] = ("answer", "solution", "gold")
"""Dataset columns read as the gold answer, in this order, when no ``gold_column`` is given."""

_COMPONENT_NAMES = {
    "P_R": "rafs_step_validity_reward",
    "S_RA": "rafs_support_reward",
    "C_A": "rafs_consensus_reward",
    "D_R": "rafs_stability_reward",
}

# ---------------------------------------------------------------------------------------------------------------
# A small shared cache: rafs_reward and the component rewards score the same groups in the same step. Keys hold
# the whole group (config, prompt, every completion text, gold), so a hit is exactly the same computation.
# Guarded by a lock: TRL may call reward functions from its async event-loop thread.
# ---------------------------------------------------------------------------------------------------------------
_CACHE_SIZE = 512
_cache: "OrderedDict[tuple, list[RAFSResult]]" = OrderedDict()
_cache_lock = threading.Lock()
_warned: set[str] = set()
_warned_lock = threading.Lock()
_stats_lock = threading.Lock()  # module-level, so reward instances stay picklable
_MAX_LOGGED_CHARS = 300  # of a prompt or a completion, in a log line


def _cache_get(key: tuple) -> list[RAFSResult] | None:
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
        return hit


def _cache_put(key: tuple, value: list[RAFSResult]) -> None:
    with _cache_lock:
        _cache[key] = value
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def clear_cache() -> None:
    """Forget cached group scores (e.g. between benchmark runs)."""
    with _cache_lock:
        _cache.clear()


def _warn_once(key: str, message: str, *args: Any) -> None:
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    log.warning(message, *args)


def _short(value: Any, limit: int = _MAX_LOGGED_CHARS) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def _prompt_key(prompt: Any) -> str:
    """A stable key for grouping: the prompt text, or canonical JSON of a message list, hashed."""
    if isinstance(prompt, str):
        raw = prompt
    else:
        try:
            raw = json.dumps(prompt, sort_keys=True, default=str, ensure_ascii=False)
        except (TypeError, ValueError):
            raw = repr(prompt)
    return hashlib.sha1(raw.encode("utf-8", errors="replace")).hexdigest()


def _coerce_config(config: RAFSConfig | Mapping[str, Any] | None) -> RAFSConfig:
    """A reward's config: missing evidence is no support unless the config says otherwise."""
    return RAFSConfig.coerce(config, use="reward")


def _distributed():
    """``torch.distributed`` when it is initialised with more than one process, else ``None``.

    torch is never imported here: if nobody imported ``torch.distributed`` no process group can exist.
    """
    dist = sys.modules.get("torch.distributed")
    if dist is None:
        return None
    try:
        if dist.is_available() and dist.is_initialized() and dist.get_world_size() > 1:
            return dist
    except Exception:  # noqa: BLE001 - a half-torn-down process group: behave as single-process
        return None
    return None


def _text(completion: Any) -> str:
    """The completion as one picklable string (gathered across ranks, a cache key) that keeps its thinking part:
    ``<think>thinking</think>`` then the summary, so the scorer still reads the summary's answer as the answer and
    lets the thinking try answers out (flattened, a box tried while thinking beat the summary's ``#### 24``)."""
    try:
        thinking, summary, has_thinking = completion_parts(completion)
        if has_thinking:
            return f"<think>{thinking}</think>\n{summary}"
        return completion_text(completion)
    except Exception as exc:  # noqa: BLE001 - untrusted structure
        log.debug("could not read a completion (%s: %s); scoring it as empty", type(exc).__name__, exc)
        return ""


def score_group_task(prompt: Any, texts: Sequence[str], gold: str | None, config: RAFSConfig,
                     verifier: Any = None) -> tuple[list[RAFSResult] | None, dict[str, int], str | None]:
    """One group scored in a pool worker: ``(results, internal errors counted meanwhile, failure)``.

    ``results`` are :func:`~rewards.scoring.score.score_group`'s; when it raises, ``results`` is ``None`` and
    ``failure`` names the exception (the caller scores the group as an abstention, or raises in strict mode, as it
    does in one process).

    >>> results, errors, failure = score_group_task("3 boxes of 4 pens", ["3 * 4 = 12\\n#### 12"], None,
    ...                                             RAFSConfig.coerce(None, use="reward"))
    >>> results[0].status, errors, failure
    ('accept', {}, None)
    """
    before = error_counts()
    try:
        results = score_group(prompt, list(texts), gold=gold, config=config, verifier=verifier)
        failure = None
    except Exception as exc:  # noqa: BLE001 - reported to the reward, which decides (strict or abstain)
        results, failure = None, f"{type(exc).__name__}: {exc}"
    after = error_counts()
    return results, {k: v - before.get(k, 0) for k, v in after.items() if v > before.get(k, 0)}, failure


class RAFSRewardFunction:
    """Base class of the RAFS reward callables: batch handling, grouping, gathering, caching, logging.

    Subclasses implement :meth:`value` (one result -> one reward). Instances are plain picklable objects with
    an instance attribute ``__name__`` (TRL's metric key); they never subclass ``torch.nn.Module``.

    Args:
        name: the ``__name__`` (metric key); keep it stable across runs.
        config: a :class:`~rewards.scoring.score.RAFSConfig`, a dict of its fields, or ``None`` for the defaults.
        gold_column: the dataset column holding the gold answer; ``None`` tries :data:`GOLD_COLUMNS` in order.
        strict: raise ``ValueError`` instead of returning ``None`` for an unscorable completion or a missing gold.
        gather: gather each group across ranks when ``torch.distributed`` runs with ``world_size > 1``.
        log_metrics: call ``log_metric`` (when TRL passes it) with batch means.
        log_extras: call ``log_extra`` (when TRL passes it) with per-completion columns.
        verifier: an optional step verifier (a :class:`~rewards.verifiers.base.StepVerifier`, picklable);
            ``None`` is the symbolic default. A custom verifier disables the shared cache.
        cache: share group scores between the RAFS reward functions of the same step (thread-safe, bounded).
        num_workers: scoring processes (:mod:`rewards.adapters.pool`, shared by every reward with the same count);
            ``None``: :func:`~rewards.adapters.pool.default_num_workers`, resolved in the process that scores (a
            pickled reward picks its own). With 1 worker and no ``timeout_s`` the groups are scored in this
            process, exactly as without a pool.
        timeout_s: the deadline of one group in seconds (a pool is used even with one worker, since only a
            separate process can be stopped without ``signal``); ``None``: no pool with one worker, else
            :data:`~rewards.adapters.pool.DEFAULT_TIMEOUT_S`. A group past its deadline has its worker killed and
            replaced; its members are then scored alone to find the completion(s) that ran too long, which get the
            unscorable credit (an abstention: ``0`` under the reward's ``missing_evidence="no_support"``, so never
            more than a checked flawed trace) with the reason logged and counted in :attr:`stats` ``["timeouts"]``,
            and the rest of the group is scored again without them (all of them when none is slow alone). A batch
            thus returns within about ``3 × timeout_s`` whatever the completions, and within ``timeout_s`` when
            each slow completion is alone in its group.

    Internal errors: every call counts the internal errors of the exact checks
    (:func:`rewards.checks.arithmetic.error_counts`, which logs each with its input at ERROR level and raises it
    under ``RAFS_STRICT=1``) that its own scoring raised, plus any group :func:`~rewards.scoring.score.score_group`
    failed on (scored as an abstention), and logs the number as the metric ``<name>/internal_errors`` (when
    ``log_metrics``). The instance keeps running totals in :attr:`stats`: ``{"groups": groups scored (cache
    misses), "failed_groups": groups whose scoring raised, "internal_errors": total, "errors_by_kind":
    {"function:ErrorType": count}}``; the first error of each kind is logged at WARNING with the group (prompt and
    completions) that caused it. The process-wide counter is read before and after each group, so rewards scoring
    on other threads at the same moment can be credited with each other's errors; the totals stay exact.
    """

    def __init__(
        self,
        name: str,
        *,
        config: RAFSConfig | Mapping[str, Any] | None = None,
        gold_column: str | None = None,
        strict: bool = False,
        gather: bool = True,
        log_metrics: bool = True,
        log_extras: bool = True,
        verifier: Any = None,
        cache: bool = True,
        num_workers: int | None = None,
        timeout_s: float | None = None,
    ) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"name={name!r} must be a non-empty string (it is TRL's metric key).")
        if gold_column is not None and (not isinstance(gold_column, str) or not gold_column):
            raise ValueError(f"gold_column={gold_column!r} must be a column name such as 'answer' or None.")
        self.__name__ = name
        self.config = _coerce_config(config)
        self.gold_column = gold_column
        self.strict = bool(strict)
        self.gather = bool(gather)
        self.log_metrics = bool(log_metrics)
        self.log_extras = bool(log_extras)
        self.verifier = verifier
        self.cache = bool(cache) and verifier is None
        self.num_workers = check_workers("num_workers", num_workers)
        self.timeout_s = check_timeout("timeout_s", timeout_s)
        self._config_key = json.dumps(asdict(self.config), sort_keys=True, default=str)
        self.stats: dict[str, Any] = {"groups": 0, "failed_groups": 0, "internal_errors": 0, "errors_by_kind": {},
                                      "timeouts": 0}

    # -- per subclass ------------------------------------------------------------------------------------------
    needs_gold = False

    def value(self, result: RAFSResult, gold: str | None) -> float | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def settings(self) -> dict[str, Any]:
        """What, beside the scorer's code, decides this reward's values: its config and its own parameters."""
        return {"class": type(self).__name__, "config": asdict(self.config),
                "verifier": None if self.verifier is None else repr(self.verifier)}

    @property
    def reward_version(self) -> str:
        """:func:`~rewards.adapters.reward_version.reward_version` of this reward: its name, the scorer's source and
        :meth:`settings`, hashed. Logged beside every value (``<name>/reward_version``)."""
        return reward_version(self.__name__, self.settings())

    def why_none(self, result: RAFSResult, gold: str | None) -> str:
        """Why :meth:`value` gave ``None`` for this result (for the log and for ``strict`` errors)."""
        return "; ".join(result.reasons) or f"status {result.status}"

    def metrics(self, results: Sequence[RAFSResult], rewards: Sequence[float | None],
                golds: Sequence[str | None]) -> dict[str, float]:
        return {}

    def extras(self, results: Sequence[RAFSResult], rewards: Sequence[float | None]) -> dict[str, list]:
        return {}

    # -- the TRL entry point -----------------------------------------------------------------------------------
    def __call__(self, prompts: Sequence[Any] | None, completions: Sequence[Any], **kwargs: Any) -> list[float | None]:
        """Score a flattened TRL batch; returns one reward (or ``None``) per completion, in order."""
        completions = list(completions)
        n = len(completions)
        prompts = [None] * n if prompts is None else list(prompts)
        if len(prompts) != n:
            raise ValueError(
                f"{self.__name__}: got {len(prompts)} prompts for {n} completions; TRL passes one prompt per "
                "completion (the prompt repeated num_generations times)."
            )
        golds = self._golds(kwargs, n)
        errors_before, timeouts_before = self.stats["internal_errors"], self.stats["timeouts"]
        results = self.score(prompts, completions, golds)
        errors = self.stats["internal_errors"] - errors_before
        timeouts = self.stats["timeouts"] - timeouts_before
        rewards: list[float | None] = []
        for i, (res, gold) in enumerate(zip(results, golds)):
            reward = self.value(res, gold)
            if reward is None or res.status == "abstain":
                why = self.why_none(res, gold) if reward is None else "; ".join(res.reasons) or "RAFS abstained"
                if self.strict:
                    raise ValueError(f"{self.__name__}: completion {i} is unscorable: {why}")
                log.debug("%s: completion %d -> %s (%s)", self.__name__, i, reward, why)
            rewards.append(reward)
        self._log(kwargs, results, rewards, golds, errors, timeouts)
        return rewards

    def score(self, prompts: Sequence[Any], completions: Sequence[Any],
              golds: Sequence[str | None] | None = None) -> list[RAFSResult]:
        """The :class:`~rewards.scoring.score.RAFSResult` of every completion, each scored within its prompt group."""
        n = len(completions)
        golds = list(golds) if golds is not None else [None] * n
        rows = [(_prompt_key(p), p, _text(c), g, i) for i, (p, c, g) in enumerate(zip(prompts, completions, golds))]
        dist = _distributed() if self.gather else None
        if dist is None:
            everything = [(key, p, text, g, 0, i) for key, p, text, g, i in rows]
            rank = 0
        else:
            rank = dist.get_rank()
            gathered: list[Any] = [None] * dist.get_world_size()
            dist.all_gather_object(gathered, [(key, p, text, g, rank, i) for key, p, text, g, i in rows])
            everything = [row for part in gathered for row in (part or [])]
        # one score_group call per (prompt, gold), in order of first appearance (rewards.adapters.batching)
        groups = group_indices((row[0], row[3]) for row in everything)
        groups = [pos for pos in groups if any(everything[i][4] == rank for i in pos)]  # others' groups: theirs
        scored = self._score_groups([(everything[pos[0]][0], everything[pos[0]][1], [everything[i][2] for i in pos],
                                      everything[pos[0]][3]) for pos in groups])
        out: list[RAFSResult | None] = [None] * n
        for positions, results in zip(groups, scored):
            if len(results) != len(positions):
                raise RuntimeError(f"{self.__name__}: a group of {len(positions)} completions got {len(results)} "
                                   "results.")
            for i, result in zip(positions, results):
                row = everything[i]
                if row[4] == rank:
                    out[row[5]] = result
        missing = [i for i, r in enumerate(out) if r is None]
        if missing:  # cannot happen unless a rank sent malformed rows; never return a short list to TRL
            raise RuntimeError(f"{self.__name__}: rows {missing} were not scored after the group gather.")
        return out  # type: ignore[return-value]

    def uses_pool(self) -> bool:
        """Whether this reward scores on a pool of worker processes in this process (more than one worker, or a
        ``timeout_s``)."""
        return self.timeout_s is not None or self.workers() > 1

    def workers(self) -> int:
        """The scoring processes this reward uses in this process (``num_workers``, else the default)."""
        return self.num_workers if self.num_workers is not None else default_num_workers()

    def _score_groups(self, groups: Sequence[tuple[str, Any, list[str], str | None]]) -> list[list[RAFSResult]]:
        """The results of every ``(key, prompt, texts, gold)`` group, in order: in this process, or on the pool."""
        if not self.uses_pool():
            return [self._score_group(*group) for group in groups]
        return self._score_on_pool(groups, self.workers())

    def _score_on_pool(self, groups: Sequence[tuple[str, Any, list[str], str | None]],
                       workers: int) -> list[list[RAFSResult]]:
        """:meth:`_score_groups` on :func:`~rewards.adapters.pool.shared_pool`: cached groups stay here, the rest
        go out one group per task; a group past its deadline is narrowed down to the completions slow on their own
        (module doc of :class:`RAFSRewardFunction`, ``timeout_s``)."""
        timeout = self.timeout_s if self.timeout_s is not None else DEFAULT_TIMEOUT_S
        pool = shared_pool(workers)
        out: list[list[RAFSResult] | None] = [None] * len(groups)
        keys: list[tuple | None] = []
        todo: list[int] = []
        for j, (key, prompt, texts, gold) in enumerate(groups):
            cache_key = (self._config_key, key, gold, tuple(texts)) if self.cache else None
            keys.append(cache_key)
            hit = _cache_get(cache_key) if cache_key is not None else None
            if hit is not None:
                out[j] = hit
            else:
                todo.append(j)

        def task(prompt: Any, texts: Sequence[str], gold: str | None) -> tuple:
            return (prompt, list(texts), gold, self.config, self.verifier)

        replies = pool.map(score_group_task, [task(*groups[j][1:]) for j in todo], timeout_s=timeout)
        slow: list[int] = []
        for j, reply in zip(todo, replies):
            _, prompt, texts, gold = groups[j]
            if isinstance(reply, Failure) and reply.kind == "timeout" and len(texts) > 1:
                slow.append(j)
                continue
            out[j] = self._accept(reply, prompt, texts, keys[j])
        if slow:  # which members are slow on their own? score each alone, then the rest together again
            singles = [(j, m) for j in slow for m in range(len(groups[j][2]))]
            alone = pool.map(score_group_task, [task(groups[j][1], [groups[j][2][m]], groups[j][3])
                                                for j, m in singles], timeout_s=timeout)
            culprits = {j: [m for (jj, m), r in zip(singles, alone)
                            if jj == j and isinstance(r, Failure) and r.kind == "timeout"] for j in slow}
            retry = [j for j in slow if culprits[j] and len(culprits[j]) < len(groups[j][2])]
            again = pool.map(score_group_task, [task(groups[j][1], [t for m, t in enumerate(groups[j][2])
                                                                    if m not in culprits[j]], groups[j][3])
                                                for j in retry], timeout_s=timeout)
            rescored = dict(zip(retry, again))
            for j in slow:
                _, prompt, texts, gold = groups[j]
                bad = set(culprits[j]) if culprits[j] else set(range(len(texts)))
                rest = [t for m, t in enumerate(texts) if m not in bad]
                got = iter(self._accept(rescored[j], prompt, rest, None)) if rest else iter(())
                why = (f"scoring this completion ran past its deadline of {timeout:g} s (timeout_s); its worker was "
                       "killed" if culprits[j] else
                       f"scoring its group of {len(texts)} ran past its deadline of {timeout:g} s (timeout_s) and "
                       "no single completion was slow on its own")
                out[j] = [self._unscorable(why, prompt, texts[m]) if m in bad else next(got)
                          for m in range(len(texts))]
        return out  # type: ignore[return-value]

    def _accept(self, reply: Any, prompt: Any, texts: Sequence[str], cache_key: tuple | None) -> list[RAFSResult]:
        """The results of one group from a pool reply: counted like :meth:`_score_group`'s, cached, or (a
        :class:`~rewards.adapters.pool.Failure`) the unscorable verdict for every member."""
        if isinstance(reply, Failure):
            if reply.kind == "timeout":
                return [self._unscorable(f"scoring ran past its deadline ({reply.reason})", prompt, t) for t in texts]
            with _stats_lock:
                self.stats["groups"] += 1
                self.stats["failed_groups"] += 1
            if self.strict:
                raise RuntimeError(f"{self.__name__}: a scoring worker failed on a group of {len(texts)}: "
                                   f"{reply.reason}")
            log.warning("%s: a scoring worker failed on a group of %d (%s); scored as an abstention",
                        self.__name__, len(texts), reply.reason)
            return [self._abstention(f"internal error: {reply.reason}") for _ in texts]
        results, new_errors, failure = reply
        self._count_errors({}, prompt, texts, failure=None if failure is None else RuntimeError(failure),
                           new=new_errors)
        if failure is not None:
            if self.strict:
                raise RuntimeError(f"{self.__name__}: scoring a group of {len(texts)} failed: {failure}")
            return [self._abstention(f"internal error: {failure}") for _ in texts]
        if cache_key is not None:
            _cache_put(cache_key, results)
        return results

    @staticmethod
    def _abstention(reason: str) -> RAFSResult:
        """The verdict of a group whose scoring raised (as :meth:`_score_group` gives it)."""
        return RAFSResult(None, "abstain", None, None, {m: None for m in COMPONENTS}, [], 0.0, None, None, [reason])

    def _unscorable(self, reason: str, prompt: Any, text: str) -> RAFSResult:
        """The verdict of a completion that ran past its deadline: an abstention, worth what the reward gives any
        unscorable completion (``0`` under ``missing_evidence="no_support"``, the reward default); counted in
        :attr:`stats` and logged with the completion."""
        with _stats_lock:
            self.stats["timeouts"] += 1
        if self.strict:
            raise TimeoutError(f"{self.__name__}: {reason}")
        log.warning("%s: %s; prompt %s, completion %s", self.__name__, reason, _short(prompt), _short(text))
        return unscorable(reason, self.config)

    def _score_group(self, key: str, prompt: Any, texts: list[str], gold: str | None) -> list[RAFSResult]:
        cache_key = (self._config_key, key, gold, tuple(texts)) if self.cache else None
        if cache_key is not None:
            hit = _cache_get(cache_key)
            if hit is not None:
                return hit
        before = error_counts()
        try:
            results = score_group(prompt, texts, gold=gold, config=self.config, verifier=self.verifier, mode="reward")
        except Exception as exc:  # noqa: BLE001 - untrusted model output must not stop a training run
            self._count_errors(before, prompt, texts, failure=exc)
            if self.strict:
                raise
            reason = f"internal error: {type(exc).__name__}: {exc}"
            results = [RAFSResult(None, "abstain", None, None, {m: None for m in COMPONENTS}, [], 0.0, None, None,
                                  [reason]) for _ in texts]
            return results
        self._count_errors(before, prompt, texts)
        if cache_key is not None:
            _cache_put(cache_key, results)
        return results

    def _count_errors(self, before: Mapping[str, int], prompt: Any, texts: Sequence[str],
                      failure: BaseException | None = None, new: Mapping[str, int] | None = None) -> None:
        """Add the internal errors raised since ``before`` (a :func:`~rewards.checks.arithmetic.error_counts`
        snapshot) while scoring this group, and ``failure`` (the group's own exception, when no counted error
        explains it), to :attr:`stats`; log the first error of each kind with the group that caused it. ``new``:
        the errors a worker process counted instead (then ``before`` is ignored)."""
        if new is None:
            after = error_counts()
            new = {k: v - before.get(k, 0) for k, v in after.items() if v > before.get(k, 0)}
        else:
            new = dict(new)
        if failure is not None and not new:
            new = {f"score_group:{type(failure).__name__}": 1}
        first: list[str] = []
        with _stats_lock:
            self.stats["groups"] += 1
            self.stats["failed_groups"] += failure is not None
            kinds = self.stats["errors_by_kind"]
            for kind, count in new.items():
                if kind not in kinds:
                    first.append(kind)
                kinds[kind] = kinds.get(kind, 0) + count
                self.stats["internal_errors"] += count
        for kind in first:
            detail = f": {type(failure).__name__}: {failure}" if failure is not None else ""
            where = "" if kind.startswith("score_group:") else \
                "; the exact input is on the ERROR line of rewards.checks.arithmetic"
            log.warning("%s: internal error %s (x%d) while scoring a group of %d completions%s; prompt %s, "
                        "completions %s (logged once per error kind; counted in the metric %s/internal_errors "
                        "and in .stats%s)", self.__name__, kind, new[kind], len(texts), detail, _short(prompt),
                        _short(list(texts), 4 * _MAX_LOGGED_CHARS), self.__name__, where)

    def _golds(self, kwargs: Mapping[str, Any], n: int) -> list[str | None]:
        columns = (self.gold_column,) if self.gold_column else GOLD_COLUMNS
        for column in columns:
            values = kwargs.get(column)
            if values is None:
                continue
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                raise ValueError(f"{self.__name__}: kwargs[{column!r}] must be a list with one gold answer per "
                                 f"completion, got {type(values).__name__}.")
            if len(values) != n:
                raise ValueError(f"{self.__name__}: kwargs[{column!r}] has {len(values)} values for {n} "
                                 "completions; pass one gold answer per completion.")
            return [None if v is None else str(v) for v in values]
        if self.needs_gold:
            message = (f"{self.__name__}: no gold column in the batch (looked for {list(columns)}); every reward is "
                       "None. Add an 'answer' or 'solution' column, or pass gold_column= to the factory.")
            if self.strict:
                raise ValueError(message)
            _warn_once(f"nogold:{self.__name__}:{columns}", message)
        return [None] * n

    def _log(self, kwargs: Mapping[str, Any], results: Sequence[RAFSResult], rewards: Sequence[float | None],
             golds: Sequence[str | None], errors: int = 0, timeouts: int = 0) -> None:
        log_metric: Callable[[str, float], Any] | None = kwargs.get("log_metric")
        log_extra: Callable[[str, list], Any] | None = kwargs.get("log_extra")
        try:
            if self.log_metrics and callable(log_metric):
                metrics = dict(self.metrics(results, rewards, golds))
                metrics["internal_errors"] = errors
                if self.uses_pool():
                    metrics["timeouts"] = timeouts
                for name, value in metrics.items():
                    log_metric(f"{self.__name__}/{name}", float(value))
            if self.log_extras and callable(log_extra):
                for column, values in self.extras(results, rewards).items():
                    log_extra(f"{self.__name__}/{column}", list(values))
                log_extra(f"{self.__name__}/reward_version", [self.reward_version] * len(results))
            if not getattr(self, "_version_logged", False):  # once per instance (and process)
                self._version_logged = True
                log.info("%s: reward version %s", self.__name__, self.reward_version)
        except Exception as exc:  # noqa: BLE001 - a logging hook must not fail the reward
            if self.strict:
                raise
            log.warning("%s: logging failed (%s: %s)", self.__name__, type(exc).__name__, exc)

    def as_async(self) -> "AsyncRewardFunction":
        """The ``async`` form of this reward (:class:`AsyncRewardFunction`)."""
        return AsyncRewardFunction(self)

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.setdefault("num_workers", None)  # pickled before the pool existed
        state.setdefault("timeout_s", None)
        state.get("stats", {}).setdefault("timeouts", 0)
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.__name__!r}, config={self.config!r})"


class AsyncRewardFunction:
    """A reward function as a coroutine: ``await f(prompts, completions, **kwargs)`` scores on a thread (the pool's
    workers do the work), so TRL's GRPOTrainer, which detects ``async`` rewards (``is_async_callable``) and awaits
    them together with ``asyncio.gather`` on its event-loop thread, runs it beside its other async rewards.

    Same ``__name__`` and results as the wrapped reward; picklable (it holds only the reward).

    >>> import asyncio
    >>> f = get_rafs_reward(asynchronous=True)
    >>> f.__name__, asyncio.run(f(["Ann has 2 bags of 5 apples."], ["2 * 5 = 10 apples.\\n#### 10"]))[0] > 0.9
    ('rafs_reward', True)
    """

    def __init__(self, reward: Callable[..., list[float | None]]) -> None:
        if not callable(reward):
            raise ValueError(f"reward={reward!r} must be a reward function (a callable over a batch).")
        self.reward = reward
        self.__name__ = getattr(reward, "__name__", type(reward).__name__)

    async def __call__(self, prompts: Sequence[Any] | None, completions: Sequence[Any],
                       **kwargs: Any) -> list[float | None]:
        return await asyncio.to_thread(self.reward, prompts, completions, **kwargs)

    def __repr__(self) -> str:
        return f"AsyncRewardFunction({self.reward!r})"


def as_async(reward: Callable[..., list[float | None]]) -> AsyncRewardFunction:
    """``reward`` (any batch reward function, e.g. ``rafs_reward``) as an ``async`` reward for TRL.

    >>> as_async(rafs_reward).__name__
    'rafs_reward'
    """
    return reward if isinstance(reward, AsyncRewardFunction) else AsyncRewardFunction(reward)


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


class RAFSReward(RAFSRewardFunction):
    """``RAFS / 100`` per completion (``None`` when RAFS abstains).

    Logs (prefix ``<name>/``): ``rafs_mean``, ``abstain_rate``, ``P_R_mean`` … ``D_R_mean``,
    ``silent_failure_rate`` (only with a gold column), ``internal_errors`` (see :class:`RAFSRewardFunction`); per
    completion: ``rafs``, ``status``, ``suspect_step``.
    """

    def value(self, result: RAFSResult, gold: str | None) -> float | None:
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
        ref = gold_answer(gold) if gold is not None else None
        if ref is None:
            return None
        if result.correct is not None:
            return result.correct
        return answers_equivalent(result.answer, ref) if result.answer is not None else False

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
                    name: str = "rafs_reward", asynchronous: bool = False, **kwargs: Any) -> RAFSReward:
    """A configured ``rafs_reward``: ``RAFS/100`` per completion, ``None`` on abstention.

    Keyword arguments: see :class:`RAFSRewardFunction` (``strict``, ``gather``, ``log_metrics``, ``log_extras``,
    ``verifier``, ``cache``, ``num_workers``, ``timeout_s``); ``asynchronous=True`` returns the ``async`` form
    (:class:`AsyncRewardFunction`).

    >>> get_rafs_reward(num_workers=4, timeout_s=5.0).workers()   # a pool of 4 starts on the first call
    4

    >>> reward = get_rafs_reward({"tau_accept": 70.0})
    >>> reward.__name__
    'rafs_reward'
    >>> reward(["Ann has 2 bags of 5 apples."], ["2 * 5 = 10 apples.\\n#### 10"])[0] > 0.9
    True
    """
    return _finish(RAFSReward(name, config=config, gold_column=gold_column, **kwargs), asynchronous)


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
    cfg = _coerce_config(config)
    only_accuracy = {k: kwargs.pop(k) for k in ("unfaithful_credit", "unverified_credit", "min_rafs") if k in kwargs}
    funcs: list[Callable[..., list[float | None]]] = []
    for key in keys:
        extra = only_accuracy if key == "faithful_accuracy" else {}
        funcs.append(_FACTORIES[key](config=cfg, **kwargs, **extra))
    return funcs
