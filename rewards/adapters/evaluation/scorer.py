"""Score many rows of problem + completion, in order, on one core or a pool of worker processes.

:func:`score_rows` is the package's one batch entry point for rows shaped like ``rafs score``'s input: each row
has ``problem`` and ``completion`` (text or a chat message list) or pre-split ``steps``, optionally ``samples``
(other completions of the same problem, for C_A and D_R) and ``answer`` (the gold answer). Each row is scored with
:func:`rewards.scoring.score.score_trace` and kept as a :class:`ScoredRow` (score, status, suspect step, components,
per-step validity ``q`` and reasons), which is all the evaluation needs and pickles cheaply back from workers.

>>> rows = [{"problem": "Tom has 3 boxes of 4 pens.", "completion": "3 * 4 = 13 pens.\\n#### 13"},
...         {"problem": "Tom has 3 boxes of 4 pens.", "steps": ["3 * 4 = 12 pens.", "The answer is 12."]}]
>>> [(r.status, r.suspect_step) for r in score_rows(rows, progress=False)]
[('review', 0), ('accept', None)]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

__all__ = ["ScoredRow", "score_rows"]


@dataclass
class ScoredRow:
    """What the evaluation keeps of one :class:`rewards.scoring.score.RAFSResult`: ``score`` (0–100, ``None`` when
    RAFS abstains), ``status``, ``suspect_step`` (0-based or ``None``), ``components`` (``P_R``, ``S_RA``, ``C_A``,
    ``D_R``, each ``None`` without evidence), ``q`` (each step's validity), ``reasons`` (each step's evidence) and
    ``failure_type``."""

    score: float | None
    status: str
    suspect_step: int | None
    components: dict[str, float | None]
    q: list[float]
    reasons: list[list[str]] = field(default_factory=list)
    failure_type: str | None = None


def _score_one(row: Mapping[str, Any], config=None, verifier=None) -> ScoredRow:
    from rewards.scoring.score import score_trace

    r = score_trace(row.get("problem"), row.get("completion"), steps=row.get("steps"), samples=row.get("samples"),
                    gold=row.get("answer"), config=config, verifier=verifier)
    return ScoredRow(r.score, r.status, r.suspect_step, dict(r.components), [float(c.q) for c in r.step_checks],
                     [list(c.reasons) for c in r.step_checks], r.failure_type)


class _Scorer:  # picklable callable for multiprocessing
    def __init__(self, config, verifier=None, checkers=None):
        self.config = config
        self.verifier = verifier
        self.checkers = checkers

    def __call__(self, row):
        if self.checkers is None:
            return _score_one(row, self.config, self.verifier)
        from rewards.checks import claims

        with claims.using(self.checkers):
            return _score_one(row, self.config, self.verifier)


def score_rows(rows: Sequence[Mapping[str, Any]], config=None, *, num_proc: int = 1, progress: bool | None = True,
               desc: str = "rafs eval", verifier=None, checkers=None) -> list[ScoredRow]:
    """Score every row, in order, with ``score_trace(problem, completion, steps=steps, samples=samples,
    gold=answer, config=config, verifier=verifier)``; never raises on untrusted text (an unscorable row abstains
    with a reason).

    Args:
        rows: mappings with ``problem`` and ``completion`` (text or messages) or ``steps``; optional ``samples``
            and ``answer`` (gold). ProcessBench rows (``problem``, ``steps``, ...) fit as they are.
        config: a :class:`rewards.scoring.score.RAFSConfig` (``None``: the defaults).
        num_proc: worker processes; ``> 1`` uses a multiprocessing pool (order kept; ``config``, ``verifier`` and
            ``checkers`` must pickle).
        progress: a tqdm bar (``None``: only on a terminal).
        desc: the bar's label.
        verifier: the step verifier (``None``: the symbolic one).
        checkers: the claim checkers to run instead of :data:`rewards.checks.claims.CHECKERS` (for ablations).

    Returns:
        one :class:`ScoredRow` per row, in the order of ``rows``.

    >>> rows = [{"problem": "Sam has 3 pens and gets 4 more.", "completion": "3 + 4 = 7\\n#### 7", "answer": "7"}]
    >>> [(r.score is not None, r.failure_type) for r in score_rows(rows, progress=False)]
    [(True, 'faithful_success')]
    """
    from tqdm import tqdm

    scorer = _Scorer(config, verifier, checkers)
    disable = None if progress is None else not progress
    if num_proc <= 1 or len(rows) < 2:
        return [scorer(r) for r in tqdm(rows, desc=desc, unit="trace", disable=disable)]
    import multiprocessing

    with multiprocessing.get_context().Pool(min(num_proc, len(rows))) as pool:
        it = pool.imap(scorer, rows, chunksize=max(1, min(32, len(rows) // (4 * num_proc))))
        return list(tqdm(it, total=len(rows), desc=desc, unit="trace", disable=disable))
