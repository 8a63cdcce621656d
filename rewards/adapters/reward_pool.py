"""Scoring the reward functions' groups on the pool of worker processes (:mod:`rewards.adapters.pool`).

:class:`PoolScoring` is the part of :class:`rewards.adapters.reward_base.RAFSRewardFunction` that sends groups to
:func:`~rewards.adapters.pool.shared_pool`: one group per task (a GRPO group is never split), handed out in the
batch's order (not largest first: a short completion that hangs would then start last and hold the step for the
normal work plus its whole deadline), results in the order of the groups and bit-identical to one process; a group past its deadline is narrowed down to
the completions slow on their own, which get the unscorable credit (:class:`~rewards.adapters.reward_base.
RAFSRewardFunction`, ``timeout_s``). :func:`score_group_task` is what a worker runs for one group.
"""

from __future__ import annotations

from typing import Any, Sequence

from rewards.adapters.pool import DEFAULT_TIMEOUT_S, Failure, default_num_workers, shared_pool, unscorable
from rewards.adapters.reward_cache import cache_get, cache_put, short_repr, stats_lock, log
from rewards.checks.arithmetic import error_counts
from rewards.scoring.score import COMPONENTS, RAFSConfig, RAFSResult, score_group

__all__ = ["score_group_task", "PoolScoring"]

Group = tuple  # (prompt key, prompt, completion texts, gold)


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



class PoolScoring:
    """The pool side of a RAFS reward function (mixed into :class:`~rewards.adapters.reward_base.RAFSRewardFunction`,
    whose attributes it reads: ``config``, ``verifier``, ``cache``, ``num_workers``, ``timeout_s``, ``strict``,
    ``stats``)."""

    def uses_pool(self) -> bool:
        """Whether this reward scores on a pool of worker processes in this process (more than one worker, or a
        ``timeout_s``)."""
        return self.timeout_s is not None or self.workers() > 1

    def workers(self) -> int:
        """The scoring processes this reward uses in this process (``num_workers``, else the default)."""
        return self.num_workers if self.num_workers is not None else default_num_workers()

    def _score_groups(self, groups: Sequence[Group]) -> list[list[RAFSResult]]:
        """The results of every ``(key, prompt, texts, gold)`` group, in order: in this process, or on the pool."""
        if not self.uses_pool():
            return [self._score_group(*group) for group in groups]
        return self._score_on_pool(groups, self.workers())

    def _score_on_pool(self, groups: Sequence[Group], workers: int) -> list[list[RAFSResult]]:
        """:meth:`_score_groups` on :func:`~rewards.adapters.pool.shared_pool`: cached groups stay here, the rest
        go out one group per task, in order; a group past its deadline is narrowed down to the completions slow
        on their own (:meth:`_narrow_down`)."""
        timeout = self.timeout_s if self.timeout_s is not None else DEFAULT_TIMEOUT_S
        pool = shared_pool(workers)
        out, keys, todo = self._from_cache(groups)
        replies = pool.map(score_group_task, [self._task(groups[j]) for j in todo], timeout_s=timeout)
        slow: list[int] = []
        for j, reply in zip(todo, replies):
            _, prompt, texts, _ = groups[j]
            if isinstance(reply, Failure) and reply.kind == "timeout" and len(texts) > 1:
                slow.append(j)
            else:
                out[j] = self._accept(reply, prompt, texts, keys[j])
        if slow:
            self._narrow_down(pool, groups, slow, out, timeout)
        return out  # type: ignore[return-value]

    def _from_cache(self, groups: Sequence[Group]) -> tuple[list, list[tuple | None], list[int]]:
        """``(results found in the shared cache, else None; each group's cache key; the groups still to score)``."""
        out: list[list[RAFSResult] | None] = [None] * len(groups)
        keys: list[tuple | None] = []
        todo: list[int] = []
        for j, (key, _, texts, gold) in enumerate(groups):
            cache_key = (self._config_key, key, gold, tuple(texts)) if self.cache else None
            keys.append(cache_key)
            hit = cache_get(cache_key) if cache_key is not None else None
            if hit is not None:
                out[j] = hit
            else:
                todo.append(j)
        return out, keys, todo

    def _task(self, group: Group, members: Sequence[int] | None = None) -> tuple:
        """The arguments of :func:`score_group_task` for ``group`` (only ``members`` of it, when given)."""
        _, prompt, texts, gold = group
        texts = list(texts) if members is None else [texts[m] for m in members]
        return (prompt, texts, gold, self.config, self.verifier)

    def _narrow_down(self, pool: Any, groups: Sequence[Group], slow: list[int], out: list, timeout: float) -> None:
        """Groups ``slow`` ran past their deadline: score each member alone to find the ones slow on their own, then
        the rest of the group together again; fill ``out[j]`` for each."""
        singles = [(j, m) for j in slow for m in range(len(groups[j][2]))]
        alone = pool.map(score_group_task, [self._task(groups[j], [m]) for j, m in singles], timeout_s=timeout)
        culprits: dict[int, list[int]] = {j: [] for j in slow}
        for (j, m), reply in zip(singles, alone):
            if isinstance(reply, Failure) and reply.kind == "timeout":
                culprits[j].append(m)
        retry = [j for j in slow if culprits[j] and len(culprits[j]) < len(groups[j][2])]
        rest = {j: [m for m in range(len(groups[j][2])) if m not in culprits[j]] for j in retry}
        again = pool.map(score_group_task, [self._task(groups[j], rest[j]) for j in retry], timeout_s=timeout)
        rescored = dict(zip(retry, again))
        for j in slow:
            out[j] = self._merge_slow(groups[j], culprits[j], rescored.get(j), timeout)

    def _merge_slow(self, group: Group, culprits: list[int], reply: Any, timeout: float) -> list[RAFSResult]:
        """A slow group's results: the unscorable verdict for its ``culprits`` (every member when none was slow
        alone), the rest from ``reply`` (the group scored again without them)."""
        _, prompt, texts, _ = group
        bad = set(culprits) if culprits else set(range(len(texts)))
        rest = [t for m, t in enumerate(texts) if m not in bad]
        got = iter(self._accept(reply, prompt, rest, None)) if rest else iter(())
        why = (f"scoring this completion ran past its deadline of {timeout:g} s (timeout_s); its worker was killed"
               if culprits else
               f"scoring its group of {len(texts)} ran past its deadline of {timeout:g} s (timeout_s) and no single "
               "completion was slow on its own")
        return [self._unscorable(why, prompt, texts[m]) if m in bad else next(got) for m in range(len(texts))]

    def _accept(self, reply: Any, prompt: Any, texts: Sequence[str], cache_key: tuple | None) -> list[RAFSResult]:
        """The results of one group from a pool reply: counted like :meth:`_score_group`'s, cached, or (a
        :class:`~rewards.adapters.pool.Failure`) the unscorable verdict for every member."""
        if isinstance(reply, Failure):
            if reply.kind == "timeout":
                return [self._unscorable(f"scoring ran past its deadline ({reply.reason})", prompt, t) for t in texts]
            with stats_lock:
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
            cache_put(cache_key, results)
        return results

    @staticmethod
    def _abstention(reason: str) -> RAFSResult:
        """The verdict of a group whose scoring raised (as :meth:`_score_group` gives it)."""
        return RAFSResult(None, "abstain", None, None, {m: None for m in COMPONENTS}, [], 0.0, None, None, [reason])

    def _unscorable(self, reason: str, prompt: Any, text: str) -> RAFSResult:
        """The verdict of a completion that ran past its deadline: an abstention, worth what the reward gives any
        unscorable completion (``0`` under ``missing_evidence="no_support"``, the reward default); counted in
        :attr:`stats` and logged with the completion."""
        with stats_lock:
            self.stats["timeouts"] += 1
        if self.strict:
            raise TimeoutError(f"{self.__name__}: {reason}")
        log.warning("%s: %s; prompt %s, completion %s", self.__name__, reason, short_repr(prompt), short_repr(text))
        return unscorable(reason, self.config)
