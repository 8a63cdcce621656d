"""A persistent pool of scoring processes behind the reward functions, with a deadline on every task.

RAFS is pure-Python and CPU-bound, so a reward that scores one completion after another in the trainer's process
uses one core while the node has dozens. :class:`ScoringPool` keeps ``num_workers`` worker processes alive across
training steps and hands each of them whole tasks (for the reward functions: one GRPO group, so ``C_A`` and ``D_R``
always see all of a prompt's completions); results come back in the order of the tasks and are the same objects,
bit for bit, that the function returns in one process.

* **Fresh interpreters, never ``fork``.** A worker is ``python -c ...`` started with :mod:`subprocess` and talking
  over two pipes (:class:`multiprocessing.connection.Connection`): safe in a trainer that holds threads, CUDA or an
  event loop, and it never re-imports the caller's ``__main__`` (a script without an ``if __name__ ==
  "__main__"`` guard still works). The worker gets the caller's ``sys.path`` and environment, so it imports the
  same ``rewards``. It exits when its pipe closes, so no worker outlives the process that started it.
* **A deadline that always holds.** ``map(fn, tasks, timeout_s=t)``: a task still running ``t`` seconds after its
  worker started it has its worker killed (``SIGKILL``) and replaced; the task's slot holds a :class:`Failure`
  (``kind="timeout"``) and the other tasks are unaffected. The clock runs in the caller, so this works on the main
  thread, on TRL's async reward thread and inside a server; no ``signal`` is involved (inside a worker the scorer
  runs on the main thread, so math-verify's own timeouts work there too). A worker's start-up (imports) is not
  charged to its first task.
* **Thread-safe.** Several threads may call :meth:`ScoringPool.map` at once (TRL runs async rewards
  concurrently); each call takes idle workers as they free up.
* **Lazy and closed.** Nothing starts before the first :meth:`~ScoringPool.map`; :meth:`~ScoringPool.close` stops the
  workers; :func:`shared_pool` hands out one pool per worker count per process, and :func:`close_pools` (also
  run at interpreter exit) stops them all.

:func:`default_num_workers` is the worker count a reward uses when none is given: ``RAFS_NUM_WORKERS``, else 1
under pytest, else the cores this process may use divided among the ranks on the node (``LOCAL_WORLD_SIZE``).

>>> import operator
>>> with ScoringPool(2) as pool:
...     pool.map(operator.add, [(1, 2), (3, 4), (5, 6)])
[3, 7, 11]
>>> with ScoringPool(1) as pool:
...     [type(r).__name__ for r in pool.map(__import__("time").sleep, [(0,), (30,)], timeout_s=1.0)]
['NoneType', 'Failure']
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Sequence

__all__ = ["ScoringPool", "Failure", "shared_pool", "close_pools", "default_num_workers", "DEFAULT_TIMEOUT_S",
           "START_TIMEOUT_S", "call_with", "unscorable", "active_pids", "check_workers", "check_timeout",
           "warm_scorer"]

log = logging.getLogger(__name__)

DEFAULT_TIMEOUT_S = 10.0
"""The deadline of one task (a reward's GRPO group) when a pool is used and no ``timeout_s`` is given."""
START_TIMEOUT_S = 120.0
"""How long a new worker may take to import the scorer and report ready before it counts as failed."""
_READY = "ready"


@dataclass(frozen=True)
class Failure:
    """A task that gave no result: ``kind`` is ``"timeout"`` (its worker ran past the deadline and was killed),
    ``"error"`` (the function raised; ``reason`` holds the exception) or ``"died"`` (the worker process ended or
    could not start); ``reason`` is one readable line for the log."""

    kind: str
    reason: str


def _under_pytest() -> bool:
    return "PYTEST_CURRENT_TEST" in os.environ or "pytest" in sys.modules


def default_num_workers() -> int:
    """Workers for a reward when none is given.

    ``RAFS_NUM_WORKERS`` when set (a positive integer); else ``1`` under pytest (tests never start pools they did
    not ask for); else ``max(1, cores // ranks)``: the cores this process may use (``os.sched_getaffinity``, which
    honours ``taskset`` and container CPU sets) divided among the ranks on this node (``LOCAL_WORLD_SIZE``, set by
    torchrun and accelerate; 1 without it).

    >>> import os
    >>> os.environ["RAFS_NUM_WORKERS"] = "3"; default_num_workers()
    3
    >>> del os.environ["RAFS_NUM_WORKERS"]
    """
    raw = os.environ.get("RAFS_NUM_WORKERS", "").strip()
    if raw:
        try:
            value = int(raw)
        except ValueError:
            value = 0
        if value < 1:
            raise ValueError(f"RAFS_NUM_WORKERS={raw!r} must be a positive integer (scoring processes per rank); "
                             "unset it for the default (cores per rank).")
        return value
    if _under_pytest():
        return 1
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    try:
        ranks = max(1, int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
    except ValueError:
        ranks = 1
    return max(1, cores // ranks)


def check_workers(name: str, value: Any) -> int | None:
    """``value`` as a worker count (a positive integer) or ``None``; a ``ValueError`` naming ``name`` otherwise."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name}={value!r} must be a positive integer (scoring processes) or None for the default "
                         "(RAFS_NUM_WORKERS, else the cores per rank).")
    return value


def check_timeout(name: str, value: Any) -> float | None:
    """``value`` as a deadline in seconds (a positive number) or ``None``; a ``ValueError`` naming ``name``."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0 or value == float("inf"):
        raise ValueError(f"{name}={value!r} must be a positive number of seconds (the deadline of one group) or "
                         "None.")
    return float(value)


def call_with(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """``fn(**kwargs)``: a task for :meth:`ScoringPool.map` of a function that takes keyword arguments.

    >>> call_with(dict, {"a": 1})
    {'a': 1}
    """
    return fn(**kwargs)


def unscorable(reason: str, config: Any = None) -> Any:
    """The verdict of a completion that could not be scored (deadline, lost worker): an abstention with ``reason``,
    worth what RAFS gives any unscorable completion under ``config`` (``0`` under ``missing_evidence=
    "no_support"``, the reward default, so never more than a checked flawed trace; ``None`` otherwise).

    >>> unscorable("scoring ran past its deadline of 5 s", {"missing_evidence": "no_support"}).score
    0.0
    """
    from rewards.scoring.score import COMPONENTS, RAFSConfig, RAFSResult

    cfg = RAFSConfig.coerce(config)
    score = 0.0 if cfg.missing_evidence == "no_support" else None
    reasons = [reason] + (["no evidence counts as no support (missing_evidence='no_support')"]
                          if score == 0.0 else [])
    return RAFSResult(score, "abstain", None, None, {m: None for m in COMPONENTS}, [], 0.0, None, None, reasons,
                      supported=False if score == 0.0 else None)


# -- the worker -----------------------------------------------------------------------------------------------------

_LAZY_IMPORTS: tuple[str, ...] = ("numpy", "sympy.combinatorics", "sympy.tensor.tensor", "sympy.sets.setexpr",
                                   "sympy.assumptions.wrapper")
"""Modules that the scorer's libraries import deep inside a call, on the first input that takes that path (sympy's
``Add.flatten`` imports ``sympy.tensor.tensor`` and through it ``sympy.combinatorics``; latex2sympy's intervals and
``exp`` import ``sympy.assumptions.wrapper`` and ``sympy.sets.setexpr``; numpy comes in through sympy). Traced with
an import hook on ProcessBench MATH: a process warmed with one completion and then 64 others still imported the sympy
modules during its next 256 completions, and numpy during the 64 (about 0.4 s together, paid again by every worker
of a pool); a worker imports them before it reports ready."""

_WARM_GROUPS: tuple[tuple[str, tuple[str, ...], str | None], ...] = (
    ("Tom has 3 boxes of 4 pens and gives away 5. How many pens are left?",
     ("3 * 4 = 12 pens.\n12 - 5 = 7 pens.\n#### 7", "3 * 4 = 12 pens, and 12 - 5 = 8.\n#### 8"), "7"),
    ("Find the positive x with x^2 = 1/2, then compute \\binom{5}{2} + 3!.",
     ("We have $x^2 = \\frac{1}{2}$, so $x = \\sqrt{\\frac{1}{2}} = \\frac{\\sqrt{2}}{2}$.\n"
      "$\\binom{5}{2} = \\frac{5!}{2!\\,3!} = 10$ and $3! = 6$, so the sum is $10 + 6 = 16$.\n"
      "The answer is $\\boxed{16}$.",), "\\boxed{16}"),
    ("For which x is e^{2x} < e^{x+1}? Give an interval.",
     ("Since $e^t$ is increasing, $e^{2x} < e^{x+1}$ means $2x < x + 1$, so $x < 1$.\n"
      "The answer is $\\boxed{(-\\infty, 1)}$.",), "(-\\infty, 1)"),
)
"""A few completions that take the scorer's main paths (integer chains, a GRPO group of two, fractions, roots,
factorials, an ``exp`` inequality, an interval answer through math-verify): scored once by a new worker."""


def warm_scorer() -> None:
    """Load what the scorer loads lazily, so that a worker's first tasks cost what later ones do: the scorer's own
    modules, :data:`_LAZY_IMPORTS`, and one scoring of :data:`_WARM_GROUPS` (first-call costs: compiled patterns,
    math-verify's parser, sympy's caches). A worker runs it before it reports ready; it never raises."""
    import importlib

    for name in _LAZY_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a library version without it: nothing to preload
            pass
    try:
        from rewards.checks.latex_algebra import warm

        warm()  # latex2sympy's parser and its first tables (rewards.evidence.latex_derivations)
        from rewards.scoring.score import score_group

        for problem, completions, gold in _WARM_GROUPS:
            score_group(problem, list(completions), gold=gold, mode="reward")
    except Exception:  # noqa: BLE001 - a task will report the real problem
        pass


def _worker_main(read_fd: int, write_fd: int) -> None:
    """The loop of one worker: receive ``(fn, args)``, send back ``(True, value)`` or ``(False, reason)``."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the trainer's to handle; the pool stops us
    inbox, outbox = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    warm_scorer()  # the first task's deadline should not pay the imports and first calls
    outbox.send((_READY, os.getpid()))
    while True:
        try:
            message = inbox.recv()
        except (EOFError, OSError):  # the caller went away
            return
        except Exception as exc:  # noqa: BLE001 - a task this process cannot unpickle (a function it cannot import)
            outbox.send((False, f"the task could not be read in the worker: {type(exc).__name__}: {exc}"))
            continue
        if message is None:
            return
        try:
            fn, args = message
            value = fn(*args)
            reply = (True, value)
        except BaseException as exc:  # noqa: BLE001 - reported to the caller, the worker goes on
            reply = (False, f"{type(exc).__name__}: {exc}")
        try:
            outbox.send(reply)
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            outbox.send((False, f"the result could not be pickled: {type(exc).__name__}: {exc}"))
        except (BrokenPipeError, OSError):
            return


class _Worker:
    """One worker process and its two pipe ends (the caller's side)."""

    def __init__(self) -> None:
        child_read, parent_write = os.pipe()
        parent_read, child_write = os.pipe()
        code = (f"import sys; sys.path[:] = {list(sys.path)!r}; "
                f"from rewards.adapters.pool import _worker_main; _worker_main({child_read}, {child_write})")
        try:
            self.process = subprocess.Popen([sys.executable, "-c", code], pass_fds=(child_read, child_write),
                                            stdin=subprocess.DEVNULL)
        finally:
            os.close(child_read)
            os.close(child_write)
        self.outbox = Connection(parent_write, readable=False)
        self.inbox = Connection(parent_read, writable=False)
        self.started = time.monotonic()
        self.ready = False

    @property
    def pid(self) -> int:
        return self.process.pid

    def kill(self) -> None:
        """Stop the process now and reap it; close the pipes."""
        try:
            self.process.kill()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process that ignores SIGKILL (D state)
            log.warning("scoring worker %d did not exit after SIGKILL", self.pid)
        self._close_pipes()

    def stop(self, grace: float = 2.0) -> None:
        """Ask the worker to exit (it finishes nothing: an idle worker), kill it if it does not within ``grace``."""
        try:
            self.outbox.send(None)
        except OSError:
            pass
        try:
            self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
            return
        self._close_pipes()

    def _close_pipes(self) -> None:
        for conn in (self.outbox, self.inbox):
            try:
                conn.close()
            except OSError:
                pass


class ScoringPool:
    """``num_workers`` persistent worker processes; :meth:`map` runs picklable ``fn(*args)`` tasks on them.

    Args:
        num_workers: worker processes (a positive integer).

    The pool itself is not picklable (it holds processes); objects that use one keep only the worker count and get
    the pool from :func:`shared_pool` in whatever process they run in.
    """

    def __init__(self, num_workers: int) -> None:
        check_workers("num_workers", num_workers)
        self.num_workers = num_workers
        self._cond = threading.Condition()
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._started = False
        self._closed = False
        self.replaced = 0
        """Workers killed (deadline) or lost (died) and replaced since the pool started."""

    # -- life cycle --------------------------------------------------------------------------------------------------
    def _start_locked(self) -> None:
        if self._closed:
            raise RuntimeError("this ScoringPool is closed; create a new one (or use shared_pool(), which does).")
        if not self._started:
            self._started = True
            for _ in range(self.num_workers):
                self._add_locked()

    def _add_locked(self) -> None:
        worker = _Worker()
        self._live.add(worker)
        self._idle.append(worker)
        self._cond.notify()

    def _retire(self, worker: _Worker, *, replace: bool) -> None:
        """Kill ``worker`` (it is not idle) and, unless the pool is closing, start another in its place."""
        worker.kill()
        with self._cond:
            self._live.discard(worker)
            if replace and not self._closed:
                self.replaced += 1
                self._add_locked()
            self._cond.notify_all()

    def warm(self) -> "ScoringPool":
        """Start the workers now (rather than on the first :meth:`map`) and wait until each has loaded the scorer;
        returns the pool. A worker that does not report ready within :data:`START_TIMEOUT_S` is replaced."""
        with self._cond:
            self._start_locked()
            cold = [w for w in self._idle if not w.ready]
            self._idle = [w for w in self._idle if w.ready]
        for worker in cold:
            left = max(0.0, worker.started + START_TIMEOUT_S - time.monotonic())
            try:
                reply = worker.inbox.recv() if worker.inbox.poll(left) else None
            except (EOFError, OSError):
                reply = None
            if isinstance(reply, tuple) and reply and reply[0] == _READY:
                worker.ready = True
                self._release(worker)
            else:
                log.warning("scoring worker %d did not start; replaced", worker.pid)
                self._retire(worker, replace=True)
        return self

    def close(self) -> None:
        """Stop every worker (idle ones exit at once; busy ones are killed). Safe to call twice; later ``map`` calls
        raise."""
        with self._cond:
            self._closed = True
            workers = list(self._live)
            self._live.clear()
            self._idle.clear()
            self._cond.notify_all()
        for worker in workers:
            worker.stop()

    @property
    def closed(self) -> bool:
        return self._closed

    def pids(self) -> list[int]:
        """The process ids of the live workers (empty before the first :meth:`map` and after :meth:`close`)."""
        with self._cond:
            return sorted(w.pid for w in self._live)

    def __enter__(self) -> "ScoringPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __reduce__(self):
        raise TypeError("a ScoringPool holds processes and cannot be pickled; pickle its num_workers and call "
                        "shared_pool(num_workers) on the other side.")

    # -- work ----------------------------------------------------------------------------------------------------------
    def map(self, fn: Callable[..., Any], tasks: Sequence[tuple], *, timeout_s: float | None = None) -> list[Any]:
        """``[fn(*args) for args in tasks]`` on the workers, in the order of ``tasks``.

        Args:
            fn: a picklable callable (a module-level function; it is imported by name in the worker).
            tasks: one tuple of picklable positional arguments per task.
            timeout_s: each task's deadline in seconds from the moment its worker starts it; ``None``: no deadline.

        Returns:
            One entry per task: ``fn``'s return value, or a :class:`Failure` (deadline, exception, lost worker).
            A failure never affects the other tasks.
        """
        timeout_s = check_timeout("timeout_s", timeout_s)
        tasks = list(tasks)
        out: list[Any] = [None] * len(tasks)
        if not tasks:
            return out
        with self._cond:
            self._start_locked()
        queue = list(range(len(tasks)))[::-1]  # pop() takes the next task in order
        running: dict[_Worker, tuple[int, float | None]] = {}  # worker -> (task, deadline; None until it is ready)
        try:
            while queue or running:
                self._dispatch(fn, tasks, queue, running, out, timeout_s)
                if running:
                    self._collect(running, out, timeout_s)
        except BaseException:
            for worker in list(running):  # an interrupt mid-batch: the workers' state is unknown, start afresh
                running.pop(worker)
                self._retire(worker, replace=True)
            raise
        return out

    def _dispatch(self, fn, tasks, queue, running, out, timeout_s) -> None:
        """Hand queued tasks to idle workers; block for one only while this call holds none."""
        while queue:
            with self._cond:
                while not self._idle and not running:
                    if self._closed:
                        raise RuntimeError("the ScoringPool was closed while a map() was waiting for a worker.")
                    self._cond.wait(0.5)
                if not self._idle:
                    return
                worker = self._take_idle_locked()
            index = queue.pop()
            try:
                worker.outbox.send((fn, tasks[index]))
            except (pickle.PicklingError, TypeError, AttributeError) as exc:
                out[index] = Failure("error", f"the task could not be pickled: {type(exc).__name__}: {exc}")
                self._release(worker)
                continue
            except OSError as exc:  # the worker is gone: retry the task on its replacement
                queue.append(index)
                self._retire(worker, replace=True)
                log.warning("scoring worker %d was gone (%s); replaced", worker.pid, exc)
                continue
            deadline = None
            if worker.ready:
                deadline = time.monotonic() + timeout_s if timeout_s is not None else float("inf")
            running[worker] = (index, deadline)

    def _take_idle_locked(self) -> _Worker:
        """An idle worker, one that has finished starting first: a replacement (after a deadline kill) imports and
        warms up the scorer for seconds, and a task handed to it waits for that; it takes one only when every
        started worker is busy (one of them may be stuck on a slow task until its deadline)."""
        for position in range(len(self._idle) - 1, -1, -1):
            worker = self._idle[position]
            if not worker.ready and worker.inbox.poll(0):  # its "ready" may be waiting in the pipe
                try:
                    reply = worker.inbox.recv()
                except (EOFError, OSError):  # it died while starting: the task will find out and replace it
                    continue
                worker.ready = isinstance(reply, tuple) and bool(reply) and reply[0] == _READY
            if worker.ready:
                return self._idle.pop(position)
        return self._idle.pop()

    def _release(self, worker: _Worker) -> None:
        with self._cond:
            if worker in self._live:
                self._idle.append(worker)
                self._cond.notify()
            else:  # the pool was closed meanwhile
                worker.stop()

    def _collect(self, running, out, timeout_s) -> None:
        """Wait for a reply or a deadline; record what arrived; kill and replace workers past their deadline."""
        now = time.monotonic()
        limits = [d if d is not None else w.started + START_TIMEOUT_S for w, (_, d) in running.items()]
        wait_for = max(0.0, min(limits) - now)
        ready = wait([w.inbox for w in running], timeout=min(wait_for, 1.0))
        by_inbox = {w.inbox: w for w in running}
        for conn in ready:
            worker = by_inbox[conn]
            index, deadline = running[worker]
            try:
                reply = conn.recv()
            except (EOFError, OSError) as exc:
                running.pop(worker)
                code = worker.process.poll()
                out[index] = Failure("died", f"scoring worker {worker.pid} ended (exit code {code}, "
                                             f"{type(exc).__name__}) while running this task")
                log.warning("%s; replaced", out[index].reason)
                self._retire(worker, replace=True)
                continue
            except Exception as exc:  # noqa: BLE001 - a reply this process cannot unpickle; the worker is fine
                running.pop(worker)
                out[index] = Failure("error", f"the result could not be read: {type(exc).__name__}: {exc}")
                self._release(worker)
                continue
            if isinstance(reply, tuple) and reply and reply[0] == _READY:
                worker.ready = True
                limit = time.monotonic() + timeout_s if timeout_s is not None else float("inf")
                running[worker] = (index, limit)
                continue
            running.pop(worker)
            ok, value = reply
            out[index] = value if ok else Failure("error", value)
            self._release(worker)
        now = time.monotonic()
        for worker, (index, deadline) in list(running.items()):
            if deadline is not None and now >= deadline:
                running.pop(worker)
                out[index] = Failure("timeout", f"scoring ran past its deadline of {timeout_s:g} s; worker "
                                                f"{worker.pid} was killed and replaced")
                log.warning("%s", out[index].reason)
                self._retire(worker, replace=True)
            elif deadline is None and now >= worker.started + START_TIMEOUT_S:
                running.pop(worker)
                out[index] = Failure("died", f"scoring worker {worker.pid} did not start within "
                                             f"{START_TIMEOUT_S:g} s")
                log.warning("%s", out[index].reason)
                self._retire(worker, replace=False)


# -- one pool per process and worker count ---------------------------------------------------------------------------

_pools: dict[int, ScoringPool] = {}
_pools_lock = threading.Lock()
_atexit_registered = False


def shared_pool(num_workers: int) -> ScoringPool:
    """This process's pool of ``num_workers`` workers, created on first use (every reward function with the same
    worker count shares it); a closed one is replaced."""
    global _atexit_registered
    check_workers("num_workers", num_workers)
    with _pools_lock:
        pool = _pools.get(num_workers)
        if pool is None or pool.closed:
            pool = _pools[num_workers] = ScoringPool(num_workers)
            if not _atexit_registered:
                atexit.register(close_pools)
                _atexit_registered = True
        return pool


def close_pools() -> None:
    """Stop every pool :func:`shared_pool` started in this process (the trainer's end, a test's teardown; also
    run at interpreter exit). Reward functions start a new one if they are called again."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


def active_pids() -> list[int]:
    """The worker process ids of every shared pool of this process (empty when none runs)."""
    with _pools_lock:
        pools = list(_pools.values())
    return sorted(pid for pool in pools for pid in pool.pids())
