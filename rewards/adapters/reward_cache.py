"""The reward functions' shared group cache and log helpers (:mod:`rewards.adapters.trl_rewards`).

``rafs_reward`` and the component rewards score the same groups in the same step: a small cache keyed by the whole
group (config, prompt key, gold, every completion text) holds their results, so a hit is exactly the same
computation. Guarded by a lock: TRL may call reward functions from its async event-loop thread. Every reward module
logs under ``rewards.adapters.trl_rewards`` (one logger to configure, whichever module a message comes from).

>>> cache_put(("k",), []); cache_get(("k",))
[]
>>> clear_cache(); cache_get(("k",)) is None
True
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from typing import Any

from rewards.scoring.score import RAFSResult

__all__ = ["clear_cache", "cache_get", "cache_put", "warn_once", "short_repr", "stats_lock", "MAX_LOGGED_CHARS",
           "log"]

log = logging.getLogger("rewards.adapters.trl_rewards")

_CACHE_SIZE = 512
_cache: "OrderedDict[tuple, list[RAFSResult]]" = OrderedDict()
_cache_lock = threading.Lock()
_warned: set[str] = set()
_warned_lock = threading.Lock()
stats_lock = threading.Lock()  # module-level, so reward instances stay picklable
MAX_LOGGED_CHARS = 300  # of a prompt or a completion, in a log line


def cache_get(key: tuple) -> list[RAFSResult] | None:
    """The cached results of the group ``key`` (``(config key, prompt key, gold, texts)``), or ``None``."""
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
        return hit


def cache_put(key: tuple, value: list[RAFSResult]) -> None:
    """Cache a group's results; the least recently used group goes past :data:`_CACHE_SIZE` groups."""
    with _cache_lock:
        _cache[key] = value
        _cache.move_to_end(key)
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)


def clear_cache() -> None:
    """Forget cached group scores (e.g. between benchmark runs)."""
    with _cache_lock:
        _cache.clear()


def warn_once(key: str, message: str, *args: Any) -> None:
    """Log ``message % args`` at WARNING the first time ``key`` is seen in this process."""
    with _warned_lock:
        if key in _warned:
            return
        _warned.add(key)
    log.warning(message, *args)


def short_repr(value: Any, limit: int = MAX_LOGGED_CHARS) -> str:
    """``repr(value)`` cut to ``limit`` characters (a prompt or a completion in a log line).

    >>> short_repr("x" * 400, 5)
    "'xxxx... (402 chars)"
    """
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"

