"""``rafs serve``: RAFS behind HTTP for PPO engines (OpenRLHF's remote reward) and anyone else.

An ASGI app (Starlette on uvicorn) that scores batches in a process pool — the symbolic scorer is pure-Python
and CPU-bound, so scoring runs in ``workers`` worker processes (a :class:`rewards.adapters.pool.ScoringPool`: fresh
interpreters, never forked), never on the event loop.

Endpoints
---------
``GET /health``
    ``{"status": "ok", "workers", "pending_items", "limits": {...}}``.
``POST /get_reward`` — OpenRLHF's remote reward payload (``openrlhf/utils/agent.py``, ``_fetch_rewards_via_http``)
    ``{"query": [prompt+response, ...], "prompts": [...], "labels": [...]}`` ->
    ``{"rewards": [...], "scores": [...], "extra_logs": {"rafs": [...], ...}}``, in request order
    (:func:`rewards.adapters.engines.openrlhf.openrlhf_rewards`). ``prompts`` and ``labels`` are optional.
``POST /score`` — plain items
    ``{"items": [{"problem": ..., "completion": ..., "answer": ..., "group": ...}]}`` (``problem``, ``answer``
    and ``group`` optional; items sharing a ``group`` are one problem's samples: C_A and D_R) ->
    ``{"results": [{"reward", "rafs", "status", "failure_type", "suspect_step", "correct", "answer",
    "components", "reasons"}, ...]}`` in order.

Limits and errors (every error body is ``{"error": "<reason naming the field, the value and the fix>"}``)
--------------------------------------------------------------------------------------------------------
* a body over ``max_bytes`` -> 413; more than ``max_batch`` items -> 413;
* not JSON -> 400; JSON of the wrong shape (missing field, wrong type, lengths that differ) -> 422;
* more than ``max_pending`` items queued or being scored -> 503 (back-pressure: retry later);
* scoring slower than ``timeout`` seconds -> 504; a chunk still running ``timeout`` seconds after its worker
  started it has that worker killed and replaced (no worker stays stuck on a completion that hangs).

A request is split into at most ``workers`` chunks that never split a group, so every response equals the same
items scored in-process, in order. The pool starts with the app (lifespan) and is shut down with it.

>>> from starlette.testclient import TestClient
>>> with TestClient(create_app(workers=1)) as client:
...     r = client.post("/get_reward", json={"query": ["Q: 3 boxes of 4 pens?\\n3 * 4 = 12\\n#### 12"],
...                                          "prompts": ["Q: 3 boxes of 4 pens?\\n"], "labels": ["12"]})
...     r.status_code, r.json()["rewards"]
(200, [1.0])
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from typing import Any, Mapping, Sequence

from rewards.adapters.pool import Failure, ScoringPool

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

__all__ = ["create_app", "plan_chunks", "score_chunk", "DEFAULTS", "RequestError"]

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "workers": 2,
    "max_batch": 1024,
    "max_bytes": 32 * 1024 * 1024,
    "timeout": 30.0,
    "mode": "auto",
}
"""Defaults shared by :func:`create_app` and ``rafs serve``."""
_SMALL = 16  # a request with fewer items than this is one chunk (IPC costs more than it saves)


class RequestError(Exception):
    """A client error: HTTP ``status`` and a one-line ``reason``."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


# --------------------------------------------------------------------------------------------------- worker side

def _warm() -> bool:
    """Import the scorer in a fresh worker and score one trace, so the first request pays no import cost."""
    from rewards.adapters.engines.core import Item, score_items

    score_items([Item("2 apples and 3 pears.", "2 + 3 = 5\n#### 5", "5")])
    return True


def score_chunk(kind: str, payload: Mapping[str, Any], mode: str, rafs_config: Mapping[str, Any] | None) -> Any:
    """Score one chunk in a worker process. ``kind`` ``"get_reward"``: ``payload`` holds ``query``, ``prompts``,
    ``labels`` lists -> OpenRLHF's dict of lists; ``kind`` ``"score"``: ``payload["rows"]`` holds
    ``(problem, completion, answer, group)`` tuples -> a list of result rows."""
    if kind == "get_reward":
        from rewards.adapters.engines.openrlhf import openrlhf_rewards

        return openrlhf_rewards(payload["query"], payload["prompts"], payload["labels"], mode=mode,
                                rafs_config=rafs_config)
    if kind == "score":
        from rewards.adapters.engines.core import score_requests

        return score_requests(payload["rows"], rafs_config, mode)
    raise ValueError(f"unknown chunk kind {kind!r}")


# --------------------------------------------------------------------------------------------------- server side

def plan_chunks(keys: Sequence[Any], parts: int) -> list[list[int]]:
    """Split item indices into at most ``parts`` chunks of similar size; items with the same non-``None`` key
    stay in one chunk (the groups of :func:`rewards.adapters.batching.group_indices`, which the scorer uses too),
    and each chunk lists its indices in increasing order.

    >>> plan_chunks(["a", "a", "b", None, "b", "c"], 2)
    [[0, 1, 2, 4], [3, 5]]
    """
    from rewards.adapters.batching import group_indices

    order = group_indices(keys)  # the groups the scorer forms
    parts = max(1, min(parts, len(order)))
    if parts == 1:
        return [list(range(len(keys)))] if keys else []
    target = len(keys) / parts
    chunks: list[list[int]] = [[]]
    for grp in order:  # contiguous packing keeps neighbouring items together and balances by count
        if len(chunks[-1]) >= target and len(chunks) < parts:
            chunks.append([])
        chunks[-1].extend(grp)
    return [sorted(c) for c in chunks if c]


def _field_list(body: Mapping[str, Any], name: str, n: int | None, *, required: bool, kinds: tuple,
                what: str) -> list | None:
    value = body.get(name)
    if value is None:
        if required:
            raise RequestError(422, f"field '{name}' is missing; send {what}.")
        return None
    if not isinstance(value, list):
        raise RequestError(422, f"field '{name}' must be a JSON list, got {type(value).__name__} "
                                f"{_short(value)}; send {what}.")
    if n is not None and len(value) != n:
        raise RequestError(422, f"field '{name}' has {len(value)} entries but 'query' has {n}; send one per query "
                                "(null where there is none).")
    for i, v in enumerate(value):
        if not isinstance(v, kinds):
            raise RequestError(422, f"{name}[{i}] = {_short(v)} is a {type(v).__name__}; send {what}.")
    return value


def _short(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, default=str) if not isinstance(value, str) else repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _parse_get_reward(body: Mapping[str, Any], max_batch: int) -> tuple[dict[str, list], list]:
    queries = _field_list(body, "query", None, required=True, kinds=(str,),
                          what="a list of prompt+response strings")
    _check_count(len(queries), "query", max_batch)
    n = len(queries)
    prompts = _field_list(body, "prompts", n, required=False, kinds=(str, type(None)),
                          what="a list of prompt strings, one per query") or [None] * n
    labels = _field_list(body, "labels", n, required=False, kinds=(str, int, float, list, type(None)),
                         what="a list of ground-truth answers (string, number or null), one per query") or [None] * n
    from rewards.adapters.engines.core import coerce_gold

    labels = [coerce_gold(v) for v in labels]
    keys = [None if p is None else (p, lab) for p, lab in zip(prompts, labels)]
    return {"query": queries, "prompts": prompts, "labels": labels}, keys


def _parse_score(body: Mapping[str, Any], max_batch: int) -> tuple[list[tuple], list]:
    items = body.get("items")
    if not isinstance(items, list):
        raise RequestError(422, f"field 'items' must be a list of {{'problem', 'completion', 'answer'}} objects, "
                                f"got {_short(items)}.")
    _check_count(len(items), "items", max_batch)
    from rewards.adapters.engines.core import coerce_gold

    rows, keys = [], []
    allowed = {"problem", "completion", "answer", "group"}
    for i, it in enumerate(items):
        if not isinstance(it, dict):
            raise RequestError(422, f"items[{i}] = {_short(it)} must be an object with 'completion' (and optional "
                                    "'problem', 'answer', 'group').")
        unknown = sorted(set(it) - allowed)
        if unknown:
            raise RequestError(422, f"items[{i}] has unknown field(s) {unknown}; allowed: {sorted(allowed)}.")
        completion = it.get("completion")
        if not isinstance(completion, (str, list)):
            raise RequestError(422, f"items[{i}].completion = {_short(completion)} must be a string or a list of "
                                    "chat messages.")
        problem = it.get("problem")
        if problem is not None and not isinstance(problem, (str, list)):
            raise RequestError(422, f"items[{i}].problem = {_short(problem)} must be a string, chat messages or "
                                    "null.")
        group = it.get("group")
        if group is not None and not isinstance(group, (str, int)):
            raise RequestError(422, f"items[{i}].group = {_short(group)} must be a string, an integer or null.")
        answer = it.get("answer")
        if answer is not None and not isinstance(answer, (str, int, float)):
            raise RequestError(422, f"items[{i}].answer = {_short(answer)} must be a string, a number or null.")
        gold = coerce_gold(answer)
        rows.append((problem, completion, gold, None if group is None else ("group", group)))
        keys.append(None if group is None else (group, gold))
    return rows, keys


def _check_count(n: int, name: str, max_batch: int) -> None:
    if n == 0:
        raise RequestError(422, f"field '{name}' is empty; send at least one item.")
    if n > max_batch:
        raise RequestError(413, f"field '{name}' has {n} items, over the server's limit of {max_batch} "
                                "(--max-batch); split the batch.")


class _Scorer:
    """The process pool, the pending-item count and the per-request deadline."""

    def __init__(self, workers: int, timeout: float, max_pending: int, mode: str,
                 rafs_config: Mapping[str, Any] | None, mp_context: str) -> None:
        self.workers = workers
        self.timeout = timeout
        self.max_pending = max_pending
        self.mode = mode
        self.rafs_config = dict(rafs_config) if rafs_config else None
        self.mp_context = mp_context
        self.pool: ProcessPoolExecutor | None = None
        self.pending = 0
        self._lock = threading.Lock()

    def start(self) -> ScoringPool:
        self.pool = ScoringPool(self.workers)
        return self.pool

    async def warm(self) -> None:
        assert self.pool is not None
        await asyncio.to_thread(self.pool.warm)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.close()
            self.pool = None

    def _release(self, n: int) -> None:
        with self._lock:
            self.pending -= n

    async def run(self, kind: str, chunks: list[tuple[list[int], dict[str, Any]]], n: int) -> list[Any]:
        with self._lock:
            if self.pending + n > self.max_pending:
                busy = self.pending
                raise RequestError(503, f"server busy: {busy} items queued or being scored, this request adds {n} "
                                        f"(limit {self.max_pending}); retry later or start more --workers.")
            self.pending += n
        pool = self.pool
        if pool is None:
            self._release(n)
            raise RequestError(503, "the scoring pool is not running (server starting or stopping); retry.")
        tasks = [(kind, payload, self.mode, self.rafs_config) for _, payload in chunks]
        # the items count as pending until their chunks are done or killed, even after a 504 was sent
        job = asyncio.ensure_future(asyncio.to_thread(pool.map, score_chunk, tasks, timeout_s=self.timeout))
        job.add_done_callback(lambda _job: self._release(n))
        try:
            parts = await asyncio.wait_for(asyncio.shield(job), self.timeout)
        except asyncio.TimeoutError:
            raise RequestError(504, f"scoring {n} items took longer than the server's timeout of {self.timeout:g} s "
                                    "(--timeout); send smaller batches or raise --timeout.") from None
        except RuntimeError as exc:  # the pool was closed under the request
            raise RequestError(503, f"the scoring pool stopped ({exc}); retry.") from None
        for part in parts:
            if isinstance(part, Failure):
                if part.kind == "timeout":
                    raise RequestError(504, f"scoring {n} items took longer than the server's timeout of "
                                            f"{self.timeout:g} s (--timeout): {part.reason}; send smaller batches or "
                                            "raise --timeout.")
                log.error("rafs serve: a scoring worker failed (%s)", part.reason)
                raise RequestError(503, f"a scoring worker failed ({part.reason}); it was replaced, retry.")
        return parts


async def _read_json(request: Request, max_bytes: int) -> Any:
    declared = request.headers.get("content-length")
    if declared is not None:
        try:
            size = int(declared)
        except ValueError:
            raise RequestError(400, f"Content-Length {declared!r} is not a number.") from None
        if size > max_bytes:
            raise RequestError(413, f"request body is {size} bytes, over the server's limit of {max_bytes} "
                                    "(--max-bytes); send smaller batches.")
    body = bytearray()
    async for part in request.stream():
        body.extend(part)
        if len(body) > max_bytes:
            raise RequestError(413, f"request body exceeds the server's limit of {max_bytes} bytes (--max-bytes); "
                                    "send smaller batches.")
    if not body:
        raise RequestError(400, "request body is empty; send a JSON object.")
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        raise RequestError(400, f"request body is not valid JSON ({exc}); send a JSON object.") from None
    if not isinstance(data, dict):
        raise RequestError(422, f"request body must be a JSON object, got a {type(data).__name__}.")
    return data


def _error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": reason}, status_code=status)


def create_app(*, workers: int = DEFAULTS["workers"], max_batch: int = DEFAULTS["max_batch"],
               max_bytes: int = DEFAULTS["max_bytes"], timeout: float = DEFAULTS["timeout"],
               max_pending: int | None = None, mode: str = DEFAULTS["mode"],
               rafs_config: Mapping[str, Any] | None = None, mp_context: str = "spawn") -> Starlette:
    """The ASGI app. ``workers`` scoring processes (fresh interpreters, :class:`rewards.adapters.pool.ScoringPool`;
    ``mp_context`` is checked for ``spawn`` or ``forkserver`` and otherwise unused), at most
    ``max_batch`` items and ``max_bytes`` bytes a request, ``timeout`` seconds a request, at most ``max_pending``
    items in flight (default ``4 * max_batch``); ``mode`` and ``rafs_config`` as in :mod:`rewards.adapters.engines.core`.

    Raises ``ValueError`` naming the argument when a limit is out of range.
    """
    from rewards.adapters.engines.core import MODES, coerce_config

    checks = (("workers", workers, 1, 256), ("max_batch", max_batch, 1, 1_000_000),
              ("max_bytes", max_bytes, 1024, 2 ** 34))
    for name, value, lo, hi in checks:
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise ValueError(f"{name}={value!r} must be an integer in [{lo}, {hi}].")
    if not isinstance(timeout, (int, float)) or not 0 < float(timeout) <= 3600:
        raise ValueError(f"timeout={timeout!r} must be a number of seconds in (0, 3600].")
    max_pending = 4 * max_batch if max_pending is None else max_pending
    if not isinstance(max_pending, int) or max_pending < max_batch:
        raise ValueError(f"max_pending={max_pending!r} must be an integer >= max_batch ({max_batch}).")
    if mode not in MODES:
        raise ValueError(f"mode={mode!r} must be one of {list(MODES)}.")
    if mp_context not in ("spawn", "forkserver"):
        raise ValueError(f"mp_context={mp_context!r} must be 'spawn' or 'forkserver' (fork is unsafe with threads).")
    coerce_config(rafs_config)  # fail at startup, not in a worker

    scorer = _Scorer(workers, float(timeout), max_pending, mode, rafs_config, mp_context)
    limits = {"max_batch": max_batch, "max_bytes": max_bytes, "timeout_s": float(timeout),
              "max_pending": max_pending, "mode": mode}

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette):
        scorer.start()
        try:
            await scorer.warm()
            yield
        finally:
            scorer.close()

    async def health(request: Request) -> JSONResponse:
        ok = scorer.pool is not None
        return JSONResponse({"status": "ok" if ok else "stopped", "workers": workers, "pending_items": scorer.pending,
                             "limits": limits}, status_code=200 if ok else 503)

    async def get_reward(request: Request) -> JSONResponse:
        try:
            body = await _read_json(request, max_bytes)
            payload, keys = _parse_get_reward(body, max_batch)
            n = len(keys)
            plan = plan_chunks(keys, workers if n >= _SMALL else 1)
            chunks = [(idx, {name: [payload[name][i] for i in idx] for name in ("query", "prompts", "labels")})
                      for idx in plan]
            parts = await scorer.run("get_reward", chunks, n)
        except RequestError as exc:
            return _error(exc.status, exc.reason)
        rewards: list[Any] = [None] * n
        scores: list[Any] = [None] * n
        logs: dict[str, list[Any]] = {}
        for (idx, _), part in zip(chunks, parts):
            for j, i in enumerate(idx):
                rewards[i] = part["rewards"][j]
                scores[i] = part["scores"][j]
                for key, values in part["extra_logs"].items():
                    logs.setdefault(key, [None] * n)[i] = values[j]
        return JSONResponse({"rewards": rewards, "scores": scores, "extra_logs": logs})

    async def score(request: Request) -> JSONResponse:
        try:
            body = await _read_json(request, max_bytes)
            unknown = sorted(set(body) - {"items"})
            if unknown:
                raise RequestError(422, f"unknown top-level field(s) {unknown}; /score takes {{'items': [...]}}.")
            rows, keys = _parse_score(body, max_batch)
            n = len(rows)
            plan = plan_chunks(keys, workers if n >= _SMALL else 1)
            chunks = [(idx, {"rows": [rows[i] for i in idx]}) for idx in plan]
            parts = await scorer.run("score", chunks, n)
        except RequestError as exc:
            return _error(exc.status, exc.reason)
        results: list[Any] = [None] * n
        for (idx, _), part in zip(chunks, parts):
            for i, row in zip(idx, part):
                results[i] = row
        return JSONResponse({"results": results})

    app = Starlette(routes=[Route("/health", health, methods=["GET"]),
                            Route("/get_reward", get_reward, methods=["POST"]),
                            Route("/score", score, methods=["POST"])],
                    lifespan=lifespan)
    app.state.scorer = scorer
    app.state.limits = limits
    return app
