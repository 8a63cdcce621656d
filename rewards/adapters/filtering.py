"""SFT dataset filtering by RAFS: keep the rows whose reasoning supports their answer, drop the rest with a reason.

Every row is scored with :func:`rewards.scoring.score.score_trace` inside a batched ``Dataset.map`` (``num_proc`` workers
supported: the scorer and its config pickle), which adds four columns:

* ``rafs`` — the score on [0, 100] (``None`` when RAFS abstains);
* ``status`` — ``accept`` / ``review`` / ``abstain``;
* ``failure_type`` — ``faithful_success``, ``silent_failure``, ``extraction_failure``, ``overt_failure``,
  ``invalid_reasoning`` or ``None``;
* ``suspect_step`` — the earliest step (0-based) whose validity ``q_t < θ_step``, or ``None``.

A row is **dropped** when (checked in this order; the first that applies is its ``reason``):

1. ``failure_type`` is in ``drop_failure_types`` -> ``reason = "failure_type:<type>"``;
2. ``status`` is not in ``statuses`` -> ``reason = "status:<status>"``;
3. ``min_rafs`` is set and ``rafs`` is ``None`` or below it -> ``reason = "rafs_below_min"``.

Before any of these, a row that cannot be scored at all is dropped without scoring (never an error of the whole
run): ``missing:problem`` / ``missing:completion`` when the problem or the completion is absent, null or blank
(a conversation without a user or an assistant turn counts as missing), ``invalid:problem`` /
``invalid:completion`` when it is neither text nor a list of chat messages. Such rows get ``status="abstain"``
and ``rafs=None``; ``reason_detail`` names the column.

Defaults (:data:`DEFAULT_STATUSES`, :data:`DEFAULT_DROP_FAILURE_TYPES`, ``min_rafs=None``): keep only
``accept`` rows — RAFS ≥ ``tau_accept`` (60 by default) and no suspect step — and drop every failure type except
``faithful_success``. ``min_rafs`` adds a stricter score floor. Dropped rows also get ``reason_detail`` (the
scorer's own evidence, e.g. ``"suspect step 1: 48/2 evaluates to 24, not 25"``). Nothing is lost:
``n_in == n_kept + n_dropped``.

Layouts (``layout="auto"`` picks the first that fits the columns):

* ``prompt_completion`` — ``prompt`` + ``completion`` (TRL's standard format; strings or message lists);
* ``messages`` — ``messages``: the last assistant message is the completion, the last user message before it
  the problem;
* ``question_answer`` — GSM8K's ``question`` + ``answer`` (or MATH's ``problem`` + ``solution``): the solution
  is the trace (``<<48/2=24>>`` annotations are equations) and its ``#### X`` / ``\\boxed{X}`` is both the final
  answer and the gold.
* ``problem_completion`` — ``problem`` + ``completion`` (``rafs score``'s rows; text or message lists);
* ``problem_steps`` — ProcessBench's ``problem`` + ``steps`` (a list of strings, one per step, scored with
  ``score_trace(problem, steps=steps)``).

The gold answer is optional: ``gold_column`` if given, else the first of ``answer``, ``solution``, ``gold`` that
is not the trace itself. A ``samples`` column (a list of other completions of the same problem) is scored with the
row, as ``rafs score`` does (it enables C_A and D_R); with a detected layout, a row that carries its trace in the
other column (``steps`` in a problem + completion file, or the reverse) is read as ``rafs score`` reads it.

The same per-row decision, :func:`score_row` under a :class:`FilterSpec` (:func:`score_batch` over a
``Dataset.map`` batch), drives the streamed, multi-process,
resumable file filter (:func:`rewards.adapters.filter_shards.filter_files`, ``rafs filter``) and the Ray Data
engine (:func:`rewards.adapters.filter_ray.filter_with_ray`, ``rafs filter --engine ray``).

Example
-------
>>> from datasets import Dataset
>>> ds = Dataset.from_list([
...     {"question": "Ann has 2 bags of 5 apples. How many apples?", "answer": "2*5=<<2*5=10>>10\\n#### 10"},
...     {"question": "Ann has 2 bags of 5 apples. How many apples?", "answer": "2*5=<<2*5=11>>11\\n#### 10"},
... ])
>>> res = filter_dataset(ds)
>>> res.summary["n_in"], res.summary["n_kept"], res.summary["n_dropped"]
(2, 1, 1)
>>> res.dropped[0]["reason"]
'failure_type:silent_failure'
"""

from __future__ import annotations

import logging
import math
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from rewards.scoring.score import FAILURE_TYPES, RAFSConfig, score_trace

if TYPE_CHECKING:  # pragma: no cover
    from datasets import Dataset

__all__ = ["filter_dataset", "FilterResult", "FilterSpec", "make_spec", "score_row", "score_batch", "detect_layout",
           "LAYOUTS", "STATUSES", "DEFAULT_STATUSES", "DEFAULT_DROP_FAILURE_TYPES", "SCORE_COLUMNS", "REASON_COLUMNS",
           "OUTPUT_COLUMNS", "summarize_counts", "merge_counts", "summary_from_counts", "validate_options",
           "own_columns"]

log = logging.getLogger(__name__)

LAYOUTS = ("prompt_completion", "messages", "question_answer", "problem_completion", "problem_steps")
STATUSES = ("accept", "review", "abstain")
DEFAULT_STATUSES: tuple[str, ...] = ("accept",)
DEFAULT_DROP_FAILURE_TYPES: tuple[str, ...] = ("silent_failure", "overt_failure", "extraction_failure",
                                               "invalid_reasoning")
SCORE_COLUMNS = ("rafs", "status", "failure_type", "suspect_step")
REASON_COLUMNS = ("reason", "reason_detail")
OUTPUT_COLUMNS = (*SCORE_COLUMNS, *REASON_COLUMNS)
_REASON_COLUMNS = REASON_COLUMNS
_QA_PAIRS = (("question", "answer"), ("problem", "solution"))


@dataclass
class FilterResult:
    """The outcome of :func:`filter_dataset`.

    Attributes:
        kept: the kept rows, original columns plus ``rafs``, ``status``, ``failure_type``, ``suspect_step``.
        dropped: the dropped rows, the same columns plus ``reason`` and ``reason_detail``.
        summary: ``n_in``, ``n_kept``, ``n_dropped``, ``reasons`` (counts per reason), ``statuses`` and
            ``failure_types`` (counts over all rows), ``rafs_mean``, ``thresholds`` (everything used to decide),
            ``seconds`` and ``rows_per_second``.
    """

    kept: "Dataset"
    dropped: "Dataset"
    summary: dict[str, Any] = field(default_factory=dict)


def detect_layout(columns: Sequence[str]) -> str:
    """The layout of a dataset with these columns: ``prompt_completion``, ``messages`` or ``question_answer``.

    >>> detect_layout(["question", "answer"])
    'question_answer'
    """
    cols = set(columns)
    if {"prompt", "completion"} <= cols:
        return "prompt_completion"
    if {"problem", "completion"} <= cols:
        return "problem_completion"
    if "messages" in cols:
        return "messages"
    if any({q, a} <= cols for q, a in _QA_PAIRS):
        return "question_answer"
    if {"problem", "steps"} <= cols:
        return "problem_steps"
    raise ValueError(
        f"cannot detect the dataset layout from columns {sorted(cols)}; expected 'prompt' (or 'problem') + "
        "'completion', 'messages', 'question' + 'answer' (or 'problem' + 'solution'), or 'problem' + 'steps'. "
        "Rename the columns or pass the layout (rafs filter --layout, filter_dataset(layout=...))."
    )


def _check_layout(layout: str, columns: Sequence[str]) -> tuple[str, tuple[str, str] | None]:
    """(layout, (problem column, trace column) for question_answer)."""
    if layout == "auto":
        layout = detect_layout(columns)
    if layout not in LAYOUTS:
        raise ValueError(f"layout={layout!r} is unknown; use 'auto' or one of {list(LAYOUTS)}.")
    cols = set(columns)
    if layout == "prompt_completion":
        missing = [c for c in ("prompt", "completion") if c not in cols]
        if missing:
            raise ValueError(f"layout='prompt_completion' needs columns 'prompt' and 'completion'; missing {missing} "
                             f"in {sorted(cols)}. Pass layout='auto' or rename the columns.")
        return layout, None
    if layout == "messages":
        if "messages" not in cols:
            raise ValueError(f"layout='messages' needs a 'messages' column; columns are {sorted(cols)}.")
        return layout, None
    if layout in ("problem_completion", "problem_steps"):
        need = ("problem", "completion" if layout == "problem_completion" else "steps")
        missing = [c for c in need if c not in cols]
        if missing:
            raise ValueError(f"layout={layout!r} needs columns {list(need)}; missing {missing} in {sorted(cols)}.")
        return layout, None
    for q, a in _QA_PAIRS:
        if {q, a} <= cols:
            return layout, (q, a)
    raise ValueError(f"layout='question_answer' needs 'question' + 'answer' (or 'problem' + 'solution'); columns "
                     f"are {sorted(cols)}.")


def _gold_column(layout: str, qa: tuple[str, str] | None, columns: Sequence[str], gold_column: str | None) -> str | None:
    if gold_column is not None:
        if gold_column not in columns:
            raise ValueError(f"gold_column={gold_column!r} is not a column; columns are {sorted(columns)}.")
        return gold_column
    for name in ("answer", "solution", "gold"):
        if name in columns and (qa is None or name != qa[1]):
            return name
    return qa[1] if qa is not None else None  # GSM8K: the solution's "#### X" is also the gold


def _messages_problem_completion(messages: Any) -> tuple[Any, Any]:
    """(problem, completion) from a conversation: the last assistant turn and the last user turn before it."""
    if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
        return None, None
    msgs = [m for m in messages if isinstance(m, Mapping)]
    last_assistant = next((i for i in range(len(msgs) - 1, -1, -1) if msgs[i].get("role") == "assistant"), None)
    if last_assistant is None:
        return None, None
    user = next((msgs[i] for i in range(last_assistant - 1, -1, -1) if msgs[i].get("role") == "user"), None)
    return ([user] if user is not None else None), [msgs[last_assistant]]


@dataclass(frozen=True)
class FilterSpec:
    """Everything that decides a row's verdict, resolved and validated once (picklable: it travels to workers).

    Build it with :func:`make_spec`; score with :func:`score_row` / :func:`score_batch`.
    """

    layout: str
    qa: tuple[str, str] | None
    gold_column: str | None
    config: RAFSConfig
    statuses: tuple[str, ...]
    drop_failure_types: tuple[str, ...]
    min_rafs: float | None
    auto: bool = False  # the layout was detected (layout="auto"): a row may carry its trace in the other column

    def thresholds(self) -> dict[str, Any]:
        """The ``thresholds`` block of a summary: everything used to decide."""
        return {"min_rafs": self.min_rafs, "statuses": list(self.statuses),
                "drop_failure_types": list(self.drop_failure_types), "layout": self.layout,
                "gold_column": self.gold_column, "rafs_config": asdict(self.config)}

    @property
    def columns(self) -> tuple[str, str]:
        """The (problem, completion) input columns of this layout."""
        if self.layout == "prompt_completion":
            return ("prompt", "completion")
        if self.layout == "messages":
            return ("messages", "messages")
        if self.layout == "problem_completion":
            return ("problem", "completion")
        if self.layout == "problem_steps":
            return ("problem", "steps")
        return self.qa  # type: ignore[return-value]


def validate_options(*, min_rafs: Any = None, statuses: Sequence[str] | str = DEFAULT_STATUSES,
                     drop_failure_types: Sequence[str] | str | None = DEFAULT_DROP_FAILURE_TYPES,
                     config: RAFSConfig | Mapping[str, Any] | None = None,
                     ) -> tuple[float | None, tuple[str, ...], tuple[str, ...], RAFSConfig]:
    """Normalise and check the filter options: ``(min_rafs, statuses, drop_failure_types, config)``.

    Raises:
        ValueError: naming the option, its value and the allowed values.
    """
    if isinstance(config, Mapping):
        config = RAFSConfig.from_dict(config)
    cfg = config or RAFSConfig()
    keep_statuses = _as_tuple(statuses, "statuses", STATUSES)
    if not keep_statuses:
        raise ValueError(f"statuses={statuses!r} keeps nothing; use e.g. ('accept',) or ('accept', 'review').")
    drop_types = _as_tuple(drop_failure_types, "drop_failure_types", FAILURE_TYPES)
    if min_rafs is not None:
        try:
            min_rafs = float(min_rafs)
        except (TypeError, ValueError):
            raise ValueError(f"min_rafs={min_rafs!r} must be a number in [0, 100] or None.") from None
        if not 0.0 <= min_rafs <= 100.0:
            raise ValueError(f"min_rafs={min_rafs!r} must be in [0, 100] (RAFS is on 0-100) or None.")
    return min_rafs, keep_statuses, drop_types, cfg


def make_spec(columns: Sequence[str], *, min_rafs: Any = None, statuses: Sequence[str] | str = DEFAULT_STATUSES,
              drop_failure_types: Sequence[str] | str | None = DEFAULT_DROP_FAILURE_TYPES, layout: str = "auto",
              config: RAFSConfig | Mapping[str, Any] | None = None, gold_column: str | None = None) -> FilterSpec:
    """Resolve the layout and gold column from the input's ``columns`` and validate every option.

    Columns this filter writes (:data:`OUTPUT_COLUMNS`) are ignored here; call :func:`own_columns` first to refuse
    an input whose own column has one of those names.

    >>> make_spec(["question", "answer"]).layout
    'question_answer'
    """
    min_rafs, keep_statuses, drop_types, cfg = validate_options(
        min_rafs=min_rafs, statuses=statuses, drop_failure_types=drop_failure_types, config=config)
    columns = [c for c in columns if c not in OUTPUT_COLUMNS]
    resolved, qa = _check_layout(layout, columns)
    gold = _gold_column(resolved, qa, columns, gold_column)
    return FilterSpec(resolved, qa, gold, cfg, keep_statuses, drop_types, min_rafs, auto=layout == "auto")


def own_columns(columns: Sequence[str]) -> list[str]:
    """The columns an earlier run of this filter wrote (to replace when re-scoring its output).

    Raises:
        ValueError: the input has some of :data:`OUTPUT_COLUMNS` but not all of :data:`SCORE_COLUMNS`, i.e. a
            column of its own with one of our names, which the filter would overwrite.
    """
    ours = [c for c in OUTPUT_COLUMNS if c in columns]
    if ours and not set(SCORE_COLUMNS) <= set(columns):
        raise ValueError(f"the input already has column(s) {ours} that the RAFS filter writes; rename them "
                         "(e.g. dataset.rename_column) so no data is overwritten.")
    if ours:
        log.info("re-scoring rows that already have RAFS columns %s; replacing them", ours)
    return ours


# the other column a row of a detected layout may carry its trace in (``rafs score`` detects each row's layout)
_TRACE_COLUMN = {"problem_completion": "steps", "prompt_completion": "steps", "problem_steps": "completion"}


def _blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, float) and value != value:  # NaN: an empty CSV cell read by pandas
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (list, tuple)):
        return len(value) == 0
    return False


def _usable(value: Any) -> bool:
    """Text, or a list of chat messages (mappings)."""
    if isinstance(value, str):
        return True
    return isinstance(value, (list, tuple)) and all(isinstance(m, Mapping) for m in value)


def _unscored(reason: str, detail: str) -> dict[str, Any]:
    return {"rafs": None, "status": "abstain", "failure_type": None, "suspect_step": None, "reason": reason,
            "reason_detail": detail}


def score_row(row: Mapping[str, Any], spec: FilterSpec) -> dict[str, Any]:
    """Score one row and decide it: ``{rafs, status, failure_type, suspect_step, reason, reason_detail}``.

    ``reason`` is ``None`` for a kept row. Never raises: a row without a problem or a completion is dropped with
    ``missing:problem`` / ``missing:completion`` (``invalid:...`` for a value that is neither text nor chat
    messages), and any scorer error becomes ``status="abstain"`` (see :func:`rewards.scoring.score.score_trace`).

    >>> spec = make_spec(["prompt", "completion"])
    >>> score_row({"prompt": "2 bags of 5?", "completion": "2*5 = 10\\n#### 10"}, spec)["reason"] is None
    True
    >>> score_row({"prompt": "2 bags of 5?"}, spec)["reason"]
    'missing:completion'
    """
    pcol, ccol = spec.columns
    layout = spec.layout
    if spec.auto and layout in _TRACE_COLUMN and _blank(row.get(ccol)):
        # layout detected from the first row's columns: a row that carries its trace in the other column (pre-split
        # steps in a problem + completion file, or the reverse) is scored as ``rafs score`` reads it
        other = _TRACE_COLUMN[layout]
        if not _blank(row.get(other)):
            ccol, layout = other, ("problem_steps" if other == "steps" else "problem_completion")
    if layout == "messages":
        messages = row.get("messages")
        if _blank(messages) or isinstance(messages, str) or not _usable(messages):
            kind = "missing" if _blank(messages) else "invalid"
            return _unscored(f"{kind}:completion", f"column 'messages' is {_describe(messages)}; a conversation "
                             "needs a user turn (the problem) and an assistant turn (the completion)")
        problem, completion = _messages_problem_completion(messages)
        if completion is None:
            return _unscored("missing:completion", "column 'messages' has no assistant turn (the completion)")
        if problem is None:
            return _unscored("missing:problem", "column 'messages' has no user turn before the last assistant turn "
                             "(the problem)")
    else:
        problem, completion = row.get(pcol), row.get(ccol)
        for role, col, value in (("problem", pcol, problem), ("completion", ccol, completion)):
            if _blank(value):
                return _unscored(f"missing:{role}", f"column {col!r} ({role}) is {_describe(value)}; every row "
                                 f"needs the problem and the completion ({layout} layout)")
            if layout == "problem_steps" and role == "completion":
                if not isinstance(value, (list, tuple)) or not all(isinstance(s, str) for s in value):
                    return _unscored("invalid:completion", f"column {col!r} (the steps) is a "
                                     f"{type(value).__name__}, not a list of strings")
                continue
            if not _usable(value):
                return _unscored(f"invalid:{role}", f"column {col!r} ({role}) is a {type(value).__name__}, not text "
                                 "or a list of chat messages")
    gold = row.get(spec.gold_column) if spec.gold_column is not None else None
    if _blank(gold):
        gold = None
    gold = None if gold is None else str(gold)
    samples = row.get("samples")  # other completions of the problem (C_A, D_R), as rafs score reads them
    samples = list(samples) if isinstance(samples, (list, tuple)) and samples and all(map(_usable, samples)) else None
    if layout == "problem_steps":
        result = score_trace(problem, steps=list(completion), gold=gold, samples=samples, config=spec.config)
    else:
        result = score_trace(problem, completion, gold=gold, samples=samples, config=spec.config)
    reason, detail = None, None
    if result.failure_type in spec.drop_failure_types:
        reason = f"failure_type:{result.failure_type}"
    elif result.status not in spec.statuses:
        reason = f"status:{result.status}"
    elif spec.min_rafs is not None and (result.score is None or result.score < spec.min_rafs):
        reason = "rafs_below_min"
    if reason is not None:
        score_txt = "None" if result.score is None else f"{result.score:.1f}"
        comps = ", ".join(f"{m}={v:.3f}" for m, v in result.components.items() if v is not None)
        detail = "; ".join([f"rafs={score_txt}" + (f" ({comps})" if comps else ""), *result.reasons])
    return {"rafs": None if result.score is None else float(result.score), "status": result.status,
            "failure_type": result.failure_type, "suspect_step": result.suspect_step, "reason": reason,
            "reason_detail": detail}


def _describe(value: Any) -> str:
    if value is None:
        return "missing or null"
    return f"empty ({value!r})" if _blank(value) else f"{type(value).__name__}"


def score_batch(batch: Mapping[str, list], spec: FilterSpec) -> dict[str, list]:
    """A ``datasets.Dataset.map(batched=True)`` function: :func:`score_row` over a batch in columnar form
    (``{column: [values]}``), returning the six :data:`OUTPUT_COLUMNS` as lists (module-level so ``num_proc`` / Ray
    workers can pickle it). To score rows of problem + completion outside a filter, use
    :func:`rewards.adapters.evaluation.score_rows`.

    >>> spec = make_spec(["question", "answer"])
    >>> out = score_batch({"question": ["Ann has 2 bags of 5 apples. How many apples?"] * 2,
    ...                    "answer": ["2*5=<<2*5=10>>10\\n#### 10", "2*5=<<2*5=11>>11\\n#### 10"]}, spec)
    >>> out["status"], out["reason"]
    (['accept', 'review'], [None, 'failure_type:silent_failure'])
    """
    n = len(next(iter(batch.values()))) if batch else 0
    out: dict[str, list] = {c: [] for c in OUTPUT_COLUMNS}
    keys = list(batch)
    for i in range(n):
        verdict = score_row({k: batch[k][i] for k in keys}, spec)
        for c in OUTPUT_COLUMNS:
            out[c].append(verdict[c])
    return out


def summarize_counts(reasons: Sequence[str | None], statuses: Sequence[str | None],
                     failure_types: Sequence[str | None], rafs: Sequence[float | None]) -> dict[str, Any]:
    """Additive counts over scored rows (mergeable across shards): ``n``, ``n_kept``, ``n_dropped``, ``reasons``,
    ``statuses``, ``failure_types``, ``rafs_sum``, ``rafs_n``."""
    vals = [v for v in rafs if v is not None]
    n_dropped = sum(r is not None for r in reasons)
    return {"n": len(reasons), "n_kept": len(reasons) - n_dropped, "n_dropped": n_dropped,
            "reasons": dict(Counter(r for r in reasons if r is not None)),
            "statuses": dict(Counter(str(s) for s in statuses)),
            "failure_types": dict(Counter(str(f) for f in failure_types)),
            "rafs_sum": math.fsum(vals), "rafs_n": len(vals)}


def _as_tuple(value: Sequence[str] | str | None, name: str, allowed: Sequence[str]) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [v.strip() for v in value.split(",")] if isinstance(value, str) else [str(v).strip() for v in value]
    items = [v for v in items if v]
    bad = [v for v in items if v not in allowed]
    if bad:
        raise ValueError(f"{name}={list(items)!r} contains unknown value(s) {bad}; use values from {list(allowed)}.")
    return tuple(items)


def filter_dataset(
    dataset: "Dataset",
    *,
    min_rafs: float | None = None,
    statuses: Sequence[str] | str = DEFAULT_STATUSES,
    drop_failure_types: Sequence[str] | str | None = DEFAULT_DROP_FAILURE_TYPES,
    layout: str = "auto",
    num_proc: int | None = None,
    config: RAFSConfig | Mapping[str, Any] | None = None,
    gold_column: str | None = None,
    batch_size: int = 64,
    desc: str = "RAFS scoring",
) -> FilterResult:
    """Score every row with RAFS and split the dataset into kept and dropped rows.

    Args:
        dataset: a ``datasets.Dataset`` in one of the layouts above.
        min_rafs: optional score floor on [0, 100]; rows below it (or unscorable) are dropped.
        statuses: the statuses to keep (default ``("accept",)``); a list or a comma-separated string.
        drop_failure_types: failure types to drop regardless of status (default: all but ``faithful_success``);
            ``None`` or ``()`` drops none.
        layout: ``"auto"`` or one of :data:`LAYOUTS`.
        num_proc: worker processes for ``Dataset.map`` (``None``: in-process).
        config: a :class:`~rewards.scoring.score.RAFSConfig` or a dict of its fields.
        gold_column: the gold-answer column (default: ``answer``/``solution``/``gold``, or the GSM8K solution).
        batch_size: rows per ``map`` batch.

    Returns:
        :class:`FilterResult` with ``kept``, ``dropped`` (with ``reason``, ``reason_detail``) and ``summary``.

    Raises:
        ValueError: an unknown layout/status/failure type, a threshold out of range, missing columns, or an
            input that already has a ``rafs``/``status``… column that this filter did not write.
    """
    started = time.perf_counter()
    _check_dataset_type(dataset)
    min_rafs, keep_statuses, drop_types, cfg = validate_options(
        min_rafs=min_rafs, statuses=statuses, drop_failure_types=drop_failure_types, config=config)
    if num_proc is not None and (not isinstance(num_proc, int) or num_proc < 1):
        raise ValueError(f"num_proc={num_proc!r} must be a positive integer or None.")
    if batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r} must be >= 1.")

    ours = own_columns(list(dataset.column_names))
    if ours:
        dataset = dataset.remove_columns(ours)
    spec = make_spec(list(dataset.column_names), min_rafs=min_rafs, statuses=keep_statuses,
                     drop_failure_types=drop_types, layout=layout, config=cfg, gold_column=gold_column)
    n_in = len(dataset)
    scored = _scored(dataset, spec, batch_size, num_proc, desc)
    reasons = scored["reason"]
    kept, dropped = _split(scored, reasons, n_in)
    counts = summarize_counts(reasons, scored["status"], scored["failure_type"], scored["rafs"])
    summary = summary_from_counts(counts, spec, seconds=time.perf_counter() - started)
    return FilterResult(kept, dropped, summary)


def _check_dataset_type(dataset) -> None:
    """Raise a ``TypeError`` unless ``dataset`` is one ``datasets.Dataset`` (not a ``DatasetDict``, not an
    ``IterableDataset``)."""
    from datasets import Dataset, DatasetDict  # lazy: the core imports no datasets

    if isinstance(dataset, DatasetDict):
        raise TypeError(f"dataset is a DatasetDict with splits {list(dataset)}; pass one split, e.g. "
                        f"dataset[{next(iter(dataset), 'train')!r}].")
    if not isinstance(dataset, Dataset):
        raise TypeError(f"dataset must be a datasets.Dataset, got {type(dataset).__name__}; an IterableDataset "
                        "cannot be split into kept/dropped — materialise it with Dataset.from_generator first.")


def _scored(dataset: "Dataset", spec, batch_size: int, num_proc: int | None, desc: str) -> "Dataset":
    """``dataset`` with the score and reason columns (:data:`SCORE_COLUMNS`, :data:`_REASON_COLUMNS`), scored by
    ``Dataset.map`` in batches (in ``num_proc`` processes when more than one)."""
    from datasets import Value  # lazy: the core imports no datasets

    features = dataset.features.copy()
    features.update({"rafs": Value("float64"), "status": Value("string"), "failure_type": Value("string"),
                     "suspect_step": Value("int64"), "reason": Value("string"), "reason_detail": Value("string")})
    n_in = len(dataset)
    scored = dataset.map(
        score_batch,
        batched=True,
        batch_size=batch_size,
        num_proc=num_proc if (num_proc or 1) > 1 and n_in > 1 else None,
        fn_kwargs={"spec": spec},
        features=features,
        load_from_cache_file=False,  # the scorer evolves; a stale cache would return stale scores
        desc=desc,
    )
    if n_in == 0:  # datasets' map skips empty datasets without adding the new columns
        scored = dataset
        for column in (*SCORE_COLUMNS, *_REASON_COLUMNS):
            scored = scored.add_column(column, [], feature=features[column])
    return scored


def _split(scored: "Dataset", reasons: list[str | None], n_in: int) -> tuple["Dataset", "Dataset"]:
    """The kept rows (no reason to drop; the reason columns removed) and the dropped ones; raises when they do not
    add up to the ``n_in`` rows read (a bug, never silent data loss)."""
    kept_idx = [i for i, r in enumerate(reasons) if r is None]
    dropped_idx = [i for i, r in enumerate(reasons) if r is not None]
    kept = scored.select(kept_idx).remove_columns(list(_REASON_COLUMNS))
    dropped = scored.select(dropped_idx)
    if len(kept) + len(dropped) != n_in:  # the conservation law; a violation is a bug, never silent data loss
        raise RuntimeError(f"filter lost rows: n_in={n_in}, kept={len(kept)}, dropped={len(dropped)}")
    return kept, dropped


def summary_from_counts(counts: Mapping[str, Any], spec: FilterSpec, *, seconds: float | None = None,
                        rows_scored: int | None = None) -> dict[str, Any]:
    """The summary dict from :func:`summarize_counts` (possibly merged over shards with :func:`merge_counts`):
    ``n_in``, ``n_kept``, ``n_dropped``, ``reasons``, ``statuses``, ``failure_types``, ``rafs_mean``,
    ``thresholds``, ``seconds``, ``rows_per_second`` (over ``rows_scored`` rows, default ``n_in``)."""
    rows = counts["n"] if rows_scored is None else rows_scored
    return {
        "n_in": counts["n"],
        "n_kept": counts["n_kept"],
        "n_dropped": counts["n_dropped"],
        "reasons": dict(sorted(counts["reasons"].items())),
        "statuses": dict(sorted(counts["statuses"].items())),
        "failure_types": dict(sorted(counts["failure_types"].items())),
        "rafs_mean": (counts["rafs_sum"] / counts["rafs_n"]) if counts["rafs_n"] else None,
        "thresholds": spec.thresholds(),
        "seconds": None if seconds is None else round(seconds, 3),
        "rows_per_second": round(rows / seconds, 1) if seconds else None,
    }


def merge_counts(parts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Add up :func:`summarize_counts` results (e.g. one per shard)."""
    total: dict[str, Any] = {"n": 0, "n_kept": 0, "n_dropped": 0, "reasons": Counter(), "statuses": Counter(),
                             "failure_types": Counter(), "rafs_sum": 0.0, "rafs_n": 0}
    sums = []
    for part in parts:
        for key in ("n", "n_kept", "n_dropped", "rafs_n"):
            total[key] += int(part[key])
        sums.append(float(part["rafs_sum"]))
        for key in ("reasons", "statuses", "failure_types"):
            total[key].update(part[key])
    total["rafs_sum"] = math.fsum(sums)  # exactly rounded: the same whatever the order of the parts
    return {k: dict(v) if isinstance(v, Counter) else v for k, v in total.items()}
