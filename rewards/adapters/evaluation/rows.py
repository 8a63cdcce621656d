"""ProcessBench-format input: read a JSON array or JSONL file and check every row before anything is scored.

A row has ``problem`` (str), ``steps`` (list of str, one per step), ``label`` (0-based index of the earliest wrong
step, ``-1`` when every step is correct) and ``final_answer_correct`` (bool), optionally ``id`` and ``generator``.
A bad row raises ``ValueError`` naming the source, the row (and its ``id``), the field, the value and the fix.

>>> rows = validate_rows([{"id": "a", "problem": "p", "steps": ["1 + 1 = 2"], "label": -1,
...                        "final_answer_correct": True}])
>>> rows[0]["label"], len(rows)
(-1, 1)
>>> validate_rows([{"id": "b", "problem": "p", "steps": "1 + 1 = 2", "label": -1, "final_answer_correct": True}])
Traceback (most recent call last):
...
ValueError: rows: row 1 (id 'b'): field 'steps' = '1 + 1 = 2' must be a non-empty list of strings (one string per step)
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterable, Mapping

__all__ = ["REQUIRED_FIELDS", "validate_rows", "load_rows"]

REQUIRED_FIELDS = ("problem", "steps", "label", "final_answer_correct")


def _where(source: str, i: int, row: Mapping[str, Any] | None = None) -> str:
    rid = row.get("id") if isinstance(row, Mapping) else None
    return f"{source}: row {i}" + (f" (id {rid!r})" if rid is not None else "")


def validate_rows(rows: Iterable[Any], source: str = "rows") -> list[dict]:
    """Check every row has the ProcessBench fields with sane values; raise ``ValueError`` naming the row (1-based:
    the first row is row 1), the field, the value and the fix. Returns the rows as a list.

    >>> validate_rows([{"problem": "p", "steps": ["a"], "label": 3, "final_answer_correct": True}])
    Traceback (most recent call last):
    ...
    ValueError: rows: row 1: field 'label' = 3 is out of range for 1 step(s); use -1 (no wrong step) or 0..0
    """
    out = []
    for i, row in enumerate(rows, 1):  # 1-based, as a user counts the rows of a file
        where = _where(source, i, row)
        if not isinstance(row, Mapping):
            raise ValueError(f"{where}: expected a JSON object with fields {list(REQUIRED_FIELDS)}, "
                             f"got {type(row).__name__}")
        for name in REQUIRED_FIELDS:
            if name not in row:
                raise ValueError(f"{where}: missing field {name!r}; every row needs {list(REQUIRED_FIELDS)} "
                                 f"(got {sorted(row)})")
        problem, steps, label, fac = row["problem"], row["steps"], row["label"], row["final_answer_correct"]
        if not isinstance(problem, str) or not problem.strip():
            raise ValueError(f"{where}: field 'problem' = {str(problem)[:40]!r} must be a non-empty string")
        if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
            raise ValueError(f"{where}: field 'steps' = {str(steps)[:40]!r} must be a non-empty list of strings "
                             "(one string per step)")
        if isinstance(label, bool) or not isinstance(label, int):
            raise ValueError(f"{where}: field 'label' = {label!r} must be an integer: -1 (no wrong step) or the "
                             "0-based index of the earliest wrong step")
        if not -1 <= label < len(steps):
            raise ValueError(f"{where}: field 'label' = {label} is out of range for {len(steps)} step(s); "
                             f"use -1 (no wrong step) or 0..{len(steps) - 1}")
        if not isinstance(fac, bool):
            raise ValueError(f"{where}: field 'final_answer_correct' = {fac!r} must be true or false")
        gen = row.get("generator")
        if gen is not None and not isinstance(gen, str):
            raise ValueError(f"{where}: field 'generator' = {gen!r} must be a string (or absent)")
        out.append(dict(row))
    if not out:
        raise ValueError(f"{source}: no rows; expected a JSON array or JSONL of ProcessBench rows")
    return out


def load_rows(path: str | os.PathLike, limit: int | None = None) -> list[dict]:
    """Read ProcessBench-format rows from a JSON array or a JSONL file (detected from the content) and validate them.

    Raises ``FileNotFoundError`` for a missing file and ``ValueError`` (naming the line or row and field) for bad
    content.

    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rows.jsonl")
    >>> with open(path, "w") as f:
    ...     _ = f.write(json.dumps({"problem": "p", "steps": ["a", "b"], "label": 1, "final_answer_correct": False}))
    >>> [r["label"] for r in load_rows(path)]
    [1]
    """
    path = os.fspath(path)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    stripped = text.lstrip()
    if stripped.startswith("["):
        try:
            rows = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}: not valid JSON (line {exc.lineno}: {exc.msg}); expected a JSON array of "
                             "rows or one JSON object per line") from None
    else:
        rows = []
        for lineno, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not valid JSON ({exc.msg}); each line must be one JSON "
                                 "object") from None
    if limit is not None:
        rows = rows[:limit]
    return validate_rows(rows, source=path)
