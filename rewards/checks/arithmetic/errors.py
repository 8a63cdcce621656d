r"""Internal-error accounting for :mod:`rewards.checks.arithmetic`: count, log once, re-raise under ``RAFS_STRICT``.

Every public function of the package catches its own failures (a reward must never crash a training run) and calls
:func:`internal_error` from its ``except`` block: the error is counted per ``"function:ErrorType"`` in
:func:`error_counts`, logged once per key on ``logging.getLogger("rewards.checks.arithmetic")`` with the traceback
and a truncated ``repr`` of the input, and re-raised when :func:`strict_mode` is on (``RAFS_STRICT=1``).
``counts`` and ``logged`` are the live tables (the package re-exports them as ``_error_counts``/``_errors_logged``).

>>> table = error_counts(); table["demo:Error"] = 1  # a copy: the live table is unchanged
>>> "demo:Error" in error_counts()
False
>>> _short_repr("x" * 300)[-12:]
' (302 chars)'
"""

from __future__ import annotations

import logging
import os
import threading
from typing import Any

__all__ = ["STRICT_ENV", "strict_mode", "error_counts", "reset_error_counts", "internal_error", "counts", "logged"]

log = logging.getLogger("rewards.checks.arithmetic")  # the package's logger (one name for every module)

STRICT_ENV = "RAFS_STRICT"
MAX_REPR_CHARS = 200  # of the offending input, in the log line
_lock = threading.Lock()
counts: dict[str, int] = {}
logged: set[str] = set()


def strict_mode() -> bool:
    """``RAFS_STRICT`` is set to ``1``/``true``/``yes``/``on``: internal errors are re-raised, not swallowed."""
    return os.environ.get(STRICT_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def error_counts() -> dict[str, int]:
    """Internal errors swallowed (or raised, under ``RAFS_STRICT``) in this process, by
    ``"function:ErrorType"`` - for a reward's metrics.  A copy; empty when nothing failed."""
    with _lock:
        return dict(counts)


def reset_error_counts() -> None:
    """Forget the counts and which errors were logged (tests; a fresh metrics window)."""
    with _lock:
        counts.clear()
        logged.clear()


def _short_repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception:  # noqa: BLE001 - a broken __repr__ must not hide the real error
        text = f"<{type(value).__name__} with a failing repr>"
    return text if len(text) <= MAX_REPR_CHARS else text[:MAX_REPR_CHARS] + f"... ({len(text)} chars)"


def internal_error(func: str, value: Any, exc: BaseException) -> None:
    """Count ``exc`` (raised by public function ``func`` on input ``value``), log it the first time this
    function raises this error type, and re-raise it under ``RAFS_STRICT``; call from the ``except`` block."""
    key = f"{func}:{type(exc).__name__}"
    with _lock:
        counts[key] = counts.get(key, 0) + 1
        first = key not in logged
        logged.add(key)
    strict = strict_mode()
    if first:
        log.error("rewards.checks.arithmetic.%s raised %s: %s on input %s; %s (logged once per function and "
                  "error type; counts in rewards.checks.arithmetic.error_counts())", func, type(exc).__name__, exc,
                  _short_repr(value), "re-raised (RAFS_STRICT is on)" if strict else
                  f"returning no result (set {STRICT_ENV}=1 to raise)", exc_info=exc)
    if strict:
        raise exc
