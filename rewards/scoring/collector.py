r"""Young garbage collections deferred while a group is scored, so that the scorer's objects die young.

Scoring a trace builds a few objects per character (a 128k-character trace keeps ~45,000 tracked objects alive to
its end: steps, equations, values). With CPython's default young threshold (700 net new tracked objects) young
collections run dozens of times during that scoring; each promotes the objects still alive, and every promoted
object is walked again by later collections, a full one included, which walks every object the process holds:
13-19% of a 128k trace's CPU time (docs/long_traces.md). Nothing of it frees anything: the objects are alive, and
die by reference counting when the scoring returns.

:func:`young_collections_deferred` raises the young threshold (``threshold0``) for the duration of one call to
``max(threshold0, min(chars, MAX_YOUNG_THRESHOLD))``, ``chars`` being the characters the call scores (more than
the tracked objects the scoring keeps alive: ~0.35 per character on long GSM8K traces), and restores it after.
What stays true:

* the collector stays enabled: a young collection still runs once that many net new objects exist (any thread's),
  so cyclic garbage waits for a bounded count, at most :data:`MAX_YOUNG_THRESHOLD` objects, and for no longer than
  the call (a scoring of a few milliseconds to seconds);
* scoped and restored: nested and concurrent calls (TRL's async reward thread beside the trainer, several reward
  functions) share one raise under a lock; the last to leave restores the threshold it found, and only if the
  threshold is still the one it set (a threshold someone else set meanwhile is left as it is);
* never when the collector is off (``gc.disable()``, ``threshold0 == 0``) or already at least as lazy, and not at all
  with ``RAFS_GC_DEFER=0`` in the environment;
* no verdict depends on it: the scorer holds no weak references and runs no finalizers, so when a collection runs
  changes no result (``benchmarks/behaviour_snapshot.py --compare``: 0 entries differ).

Pauses: a young collection that does run inside the window walks more objects at once (up to the threshold: tens of
milliseconds at a million), in exchange for no promotions of the scorer's objects and the full collections they
would cause.

>>> import gc
>>> before = gc.get_threshold()
>>> with young_collections_deferred(50_000):
...     inside = gc.get_threshold()[0]
>>> (inside >= min(50_000, MAX_YOUNG_THRESHOLD) or not gc.isenabled() or not enabled()), gc.get_threshold() == before
(True, True)
"""

from __future__ import annotations

import gc
import os
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Sequence

__all__ = ["MAX_YOUNG_THRESHOLD", "enabled", "group_chars", "young_collections_deferred"]

MAX_YOUNG_THRESHOLD = 1_000_000
"""The most net new tracked objects a young collection waits for while a group is scored (~100 MB of small
objects): the bound on what cyclic garbage of any thread can wait for during the call."""

_LOCK = threading.RLock()  # reentrant: a finalizer run by a collection inside the lock cannot deadlock it
_STATE: dict[str, Any] = {"depth": 0, "found": None, "set": None}


def _after_fork_in_child() -> None:
    """A process forked while a group was scored (a data loader's workers) starts with a fresh lock and, unless it
    changed it, the threshold found before the raise: it scores none of its parent's groups."""
    global _LOCK
    _LOCK = threading.RLock()
    found, mine = _STATE["found"], _STATE["set"]
    _STATE.update(depth=0, found=None, set=None)
    if found is not None and gc.get_threshold() == mine:
        gc.set_threshold(*found)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def enabled() -> bool:
    """Whether the deferral is on (``RAFS_GC_DEFER`` unset or not ``0``)."""
    return os.environ.get("RAFS_GC_DEFER", "1").strip() != "0"


def group_chars(completions: Sequence[Any], steps: Sequence[Any] | None = None) -> int:
    """The characters a group scores: each completion's text (a string, or the ``content`` strings of its
    messages), or its pre-split steps when given; anything else counts 0.

    >>> group_chars(["abc", [{"role": "assistant", "content": "de"}], None], [None, None, ["fg", "h"]])
    8
    """
    total = 0
    for k, completion in enumerate(completions):
        given = steps[k] if steps is not None and k < len(steps) else None
        if given is not None:
            total += sum(len(s) for s in given if isinstance(s, str))
        elif isinstance(completion, str):
            total += len(completion)
        elif isinstance(completion, (list, tuple)):
            total += sum(len(m.get("content")) for m in completion
                         if isinstance(m, dict) and isinstance(m.get("content"), str))
    return total


@contextmanager
def young_collections_deferred(chars: int) -> Iterator[None]:
    """Young collections wait for ``min(chars, MAX_YOUNG_THRESHOLD)`` net new objects (never fewer than the
    threshold found) until the outermost such block of the process ends (module docstring)."""
    want = min(max(int(chars), 0), MAX_YOUNG_THRESHOLD)
    _enter(want)
    try:
        yield
    finally:
        _leave()


def _enter(want: int) -> None:
    with _LOCK:
        _STATE["depth"] += 1
        current = gc.get_threshold()
        if not enabled() or not gc.isenabled() or current[0] == 0 or want <= current[0]:
            return  # off, or already at least as lazy (ours from an enclosing call, or the process's own)
        if _STATE["found"] is None:
            _STATE["found"] = current  # the threshold to restore: the one found before any raise
        _STATE["set"] = (want, *current[1:])
        gc.set_threshold(*_STATE["set"])


def _leave() -> None:
    with _LOCK:
        _STATE["depth"] -= 1
        if _STATE["depth"] > 0 or _STATE["found"] is None:
            return
        found, mine = _STATE["found"], _STATE["set"]
        _STATE["found"] = _STATE["set"] = None
        if gc.get_threshold() == mine:  # nobody changed it meanwhile: restore; else theirs stands
            gc.set_threshold(*found)
