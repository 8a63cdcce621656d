"""The trace gate every claim checker runs before its per-step loop: one cheap test on the whole trace.

A checker's step test (a few substring tests and a linear regex: :func:`rewards.checks.claims.numberfacts`'s
``_may_hold_a_fact`` and the like) admits a step only if the step holds one of its words or patterns. Whatever step
it admits, it admits the steps joined by newlines too: the words and patterns match inside the step, and for every
lookaround and ``\\b`` in them the newline between two steps reads like a step's start or end. So a trace whose
joined text the test rejects has no step worth a look, and most traces are rejected by one test instead of one per
step (tests/rewards/test_gate_fast_paths.py checks this on GSM8K and MATH-500 text and on fuzzed strings). A long
trace is tested in chunks of steps (:data:`CHUNK_STEPS`), up to the first chunk admitted.

>>> admits(["2 + 2 = 4", "so 4 apples"], lambda text: "mod" in text), admits(["x mod 3"], lambda text: "mod" in text)
(False, True)
>>> admits(iter(["a generator is read once"]), lambda text: False)  # the gate stays open: the loop reads it
True
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from rewards.checks.arithmetic import EquationCheck


CHUNK_STEPS = 128
"""Steps joined per test: a long trace is tested a chunk at a time and admitted at the first chunk the test admits
(whatever step the test admits, it admits the chunk that holds it). A long trace most often holds a step worth a
look early, and one test of its whole text cost as much as the per-step tests it was to spare."""


def admits(steps: Sequence[str], step_test: Callable[[str], bool]) -> bool:
    """Whether ``step_test`` admits the newline-joined ``steps``, read :data:`CHUNK_STEPS` steps at a time: ``False``
    means no single step can pass it. The gate stays open (``True``) when ``steps`` is no list or tuple (a generator
    would be used up) or a step is no text (the checker's loop skips it)."""
    if not isinstance(steps, (tuple, list)):
        return True
    if len(steps) <= CHUNK_STEPS:
        return _admits_joined(steps, step_test)
    for start in range(0, len(steps), CHUNK_STEPS):
        if _admits_joined(steps[start:start + CHUNK_STEPS], step_test):
            return True
    return False


def _admits_joined(steps: Sequence[str], step_test: Callable[[str], bool]) -> bool:
    try:
        text = "\n".join(steps)
    except TypeError:
        return True
    return bool(step_test(text))


def step_claims(steps: Sequence[str], may_hold: Callable[[str], bool], claims: Callable[[str], Iterable[EquationCheck]],
                max_steps: int, max_step_chars: int,
                gate: Callable[[Sequence[str]], bool] | None = None) -> list[tuple[int, EquationCheck]]:
    """The per-step loop of a claim checker: ``(step_index, check)`` for every check ``claims(step)`` gives on the
    first ``max_steps`` steps that are text of at most ``max_step_chars`` characters and that ``may_hold`` admits,
    after the trace gate (``gate``, by default :func:`admits` with ``may_hold``). Never raises on untrusted text: any
    error gives ``[]``.

    >>> step_claims(["1 = 2", "fine"], lambda s: "=" in s, lambda s: ["refuted"], 10, 100)
    [(0, 'refuted')]
    """
    out: list[tuple[int, EquationCheck]] = []
    try:
        if not (gate(steps) if gate is not None else admits(steps, may_hold)):
            return out
        for k, step in enumerate(steps[:max_steps]):
            if isinstance(step, str) and len(step) <= max_step_chars and may_hold(step):
                out.extend((k, c) for c in claims(step))
    except Exception:  # untrusted text: a checker never raises
        return []
    return out
