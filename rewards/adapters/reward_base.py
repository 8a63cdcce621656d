"""The base class of the RAFS reward functions: batch handling, grouping, gathering across ranks, caching, logging.

:class:`RAFSRewardFunction` turns a flattened TRL batch into groups (identical prompt and gold, in order of first
appearance: :mod:`rewards.adapters.batching`), scores each group with :func:`rewards.scoring.score.score_group` in this
process or on the pool (:class:`rewards.adapters.reward_pool.PoolScoring`), and maps each result to a reward through
its subclass's :meth:`~RAFSRewardFunction.value` (the subclasses and factories are in
:mod:`rewards.adapters.trl_rewards`, where users import them). :class:`AsyncRewardFunction` is the ``async`` form.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sys
from dataclasses import asdict
from typing import Any, Callable, Mapping, Sequence

from rewards.adapters.batching import group_indices
from rewards.adapters.pool import check_timeout, check_workers
from rewards.adapters.reward_cache import MAX_LOGGED_CHARS, cache_get, cache_put, short_repr, stats_lock, warn_once, log
from rewards.adapters.reward_pool import PoolScoring
from rewards.adapters.reward_version import reward_version
from rewards.checks.arithmetic import error_counts
from rewards.parsing.trace import completion_parts, completion_text
from rewards.scoring.score import COMPONENTS, RAFSConfig, RAFSResult, score_group

__all__ = ["RAFSRewardFunction", "AsyncRewardFunction", "GOLD_COLUMNS", "as_async", "reward_config"]

GOLD_COLUMNS: tuple[str, ...] = ("answer", "solution", "gold")
"""Dataset columns read as the gold answer, in this order, when no ``gold_column`` is given."""


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


def reward_config(config: RAFSConfig | Mapping[str, Any] | None) -> RAFSConfig:
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


class RAFSRewardFunction(PoolScoring):
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
        self.config = reward_config(config)
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
        everything, rank = self._gathered([(_prompt_key(p), p, _text(c), g, i)
                                           for i, (p, c, g) in enumerate(zip(prompts, completions, golds))])
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
                if everything[i][4] == rank:
                    out[everything[i][5]] = result
        missing = [i for i, r in enumerate(out) if r is None]
        if missing:  # cannot happen unless a rank sent malformed rows; never return a short list to TRL
            raise RuntimeError(f"{self.__name__}: rows {missing} were not scored after the group gather.")
        return out  # type: ignore[return-value]

    def _gathered(self, rows: list[tuple]) -> tuple[list[tuple], int]:
        """``(every rank's (key, prompt, text, gold, rank, index) rows, this rank)``: this rank's ``(key, prompt,
        text, gold, index)`` rows gathered from every rank when ``torch.distributed`` runs with several processes
        (and ``gather``), else only them with rank 0."""
        dist = _distributed() if self.gather else None
        if dist is None:
            return [(key, p, text, g, 0, i) for key, p, text, g, i in rows], 0
        rank = dist.get_rank()
        gathered: list[Any] = [None] * dist.get_world_size()
        dist.all_gather_object(gathered, [(key, p, text, g, rank, i) for key, p, text, g, i in rows])
        return [row for part in gathered for row in (part or [])], rank

    def _score_group(self, key: str, prompt: Any, texts: list[str], gold: str | None) -> list[RAFSResult]:
        cache_key = (self._config_key, key, gold, tuple(texts)) if self.cache else None
        if cache_key is not None:
            hit = cache_get(cache_key)
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
            cache_put(cache_key, results)
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
        with stats_lock:
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
                        "and in .stats%s)", self.__name__, kind, new[kind], len(texts), detail, short_repr(prompt),
                        short_repr(list(texts), 4 * MAX_LOGGED_CHARS), self.__name__, where)

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
            warn_once(f"nogold:{self.__name__}:{columns}", message)
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
    >>> from rewards.adapters.trl_rewards import get_rafs_reward
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

    >>> from rewards.adapters.trl_rewards import rafs_reward
    >>> as_async(rafs_reward).__name__
    'rafs_reward'
    """
    return reward if isinstance(reward, AsyncRewardFunction) else AsyncRewardFunction(reward)


