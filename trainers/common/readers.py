"""One reader for every command: JSON Lines, a JSON array, CSV and parquet, in four layouts, with the same flags.

Formats (chosen by the file's suffix; a file with another suffix is read as JSON when it starts with ``[`` or
``{``; ``-`` is standard input, JSON Lines or one JSON array):

* ``.jsonl`` — one JSON object per line (streamed);
* ``.json`` — one JSON array of objects (read whole), or JSON Lines;
* ``.csv`` — a header row; cells are text (read in chunks with pandas), an empty cell is null, and a cell holding a
  JSON list (``steps``, chat ``messages``, ``samples``) is decoded;
* ``.parquet`` — read in record batches with pyarrow (streamed).

Layouts (``--layout``; ``auto``, the default, picks for each row the one layout its non-null columns fit):

* ``problem_completion`` — ``problem`` (or ``prompt``) + ``completion``: text or a list of chat messages (TRL's
  prompt-completion format); the gold answer, optional, from ``answer`` or ``gold``;
* ``question_answer`` — GSM8K's ``question`` + ``answer`` (or MATH's ``problem`` + ``solution``): the worked
  solution is the trace (``<<48/2=24>>`` annotations are equations) and its ``#### X`` / ``\\boxed{X}`` the gold,
  unless another column holds the gold (MATH's ``answer``);
* ``problem_steps`` — ProcessBench's ``problem`` + ``steps`` (a list of strings, one per step);
* ``messages`` — a chat ``messages`` list: the last assistant turn is the completion, the last user turn before it
  the problem.

Column flags rename what a layout reads: ``--problem-col``, ``--completion-col`` (the completion, or the worked
solution of ``question_answer``), ``--steps-col``, ``--answer-col`` (the gold answer) and ``--messages-col``.
A row that fits no layout, or more than one, is a one-line :class:`trainers.cli.CommandError` naming the row, the
columns found and ``--layout``; so are a missing file, a folder, an empty input and an unreadable format.

>>> spec = LayoutSpec()
>>> item = spec.item({"question": "2 bags of 5?", "answer": "2*5=<<2*5=10>>10\\n#### 10"}, "row 1")
>>> item.layout, item.problem, item.gold
('question_answer', '2 bags of 5?', '2*5=<<2*5=10>>10\\n#### 10')
>>> spec.item({"problem": "1+1?", "steps": ["1 + 1 = 2", "#### 2"]}, "row 2").steps
['1 + 1 = 2', '#### 2']
>>> spec.item({"problem": "1+1?", "completion": "2", "steps": ["2"]}, "in.jsonl:3")
Traceback (most recent call last):
...
trainers.common.errors.CommandError: in.jsonl:3: the columns fit more than one layout (problem_completion, problem_steps); \
columns found: ['completion', 'problem', 'steps']; pass --layout problem_completion (or another) to choose
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from trainers.common.errors import CommandError

__all__ = ["LAYOUTS", "LAYOUT_ALIASES", "FORMATS", "Item", "LayoutSpec", "add_reader_arguments", "spec_from_args",
           "check_input_path", "iter_rows", "read_items", "peek_columns"]

LAYOUTS = ("problem_completion", "question_answer", "problem_steps", "messages")
LAYOUT_ALIASES = {"prompt_completion": "problem_completion", "gsm8k": "question_answer",
                  "processbench": "problem_steps", "chat": "messages"}
FORMATS = (".jsonl", ".json", ".csv", ".parquet")
_PROBLEM_COLS = ("problem", "prompt")
_GOLD_COLS = ("answer", "gold")
_QA_PAIRS = (("question", "answer"), ("problem", "solution"))
_LIST_COLS = ("steps", "messages", "samples")


@dataclass
class Item:
    """What a scorer needs from one row, whatever its layout."""

    layout: str
    problem: Any
    completion: Any = None
    steps: list[str] | None = None
    gold: str | None = None
    samples: list | None = None


def _present(row: Mapping[str, Any], col: str | None) -> bool:
    if col is None or col not in row:
        return False
    value = row[col]
    if value is None or (isinstance(value, float) and value != value):
        return False
    if isinstance(value, str) and not value.strip():
        return False
    return True


def _blank_text(row: Mapping[str, Any], col: str) -> bool:
    """``col`` is in ``row`` and holds an empty or whitespace-only string."""
    value = row.get(col)
    return isinstance(value, str) and not value.strip()


def _decode_list(value: Any) -> Any:
    """A JSON list stored as text (a CSV cell), decoded; anything else unchanged."""
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            decoded = json.loads(value)
        except ValueError:
            return value
        if isinstance(decoded, list):
            return decoded
    return value


def _decode_chat(value: Any) -> Any:
    """Text holding a JSON list of chat messages (a CSV cell) as that list; anything else unchanged."""
    decoded = _decode_list(value)
    if isinstance(decoded, list) and decoded and all(isinstance(m, Mapping) and "role" in m for m in decoded):
        return decoded
    return value


def _text_or_chat(value: Any) -> bool:
    return isinstance(value, str) or (isinstance(value, list) and all(isinstance(m, Mapping) for m in value))


@dataclass(frozen=True)
class LayoutSpec:
    """The layout (``auto`` or one of :data:`LAYOUTS`) and the column names a command was given."""

    layout: str = "auto"
    problem_col: str | None = None
    completion_col: str | None = None
    steps_col: str | None = None
    answer_col: str | None = None
    messages_col: str | None = None
    allowed: tuple[str, ...] = field(default=LAYOUTS)

    def __post_init__(self) -> None:
        layout = LAYOUT_ALIASES.get(self.layout, self.layout)
        object.__setattr__(self, "layout", layout)
        if layout != "auto" and layout not in LAYOUTS:
            raise CommandError(f"--layout {self.layout!r} is unknown; use auto or one of {', '.join(self.allowed)}")
        if layout != "auto" and layout not in self.allowed:
            raise CommandError(f"--layout {layout} cannot be used here; use one of {', '.join(self.allowed)}")

    # -- which layouts a row fits -----------------------------------------------------------------------------
    def _problem(self, row: Mapping[str, Any], defaults: Sequence[str] = _PROBLEM_COLS) -> str | None:
        if self.problem_col is not None:
            return self.problem_col if _present(row, self.problem_col) else None
        return next((c for c in defaults if _present(row, c)), None)

    def _qa(self, row: Mapping[str, Any]) -> tuple[str, str] | None:
        if self.problem_col is not None or self.completion_col is not None:
            pairs = [(self.problem_col or q, self.completion_col or a) for q, a in _QA_PAIRS]
        else:
            pairs = list(_QA_PAIRS)
        return next(((q, a) for q, a in pairs if _present(row, q) and _present(row, a)), None)

    def fits(self, row: Mapping[str, Any]) -> list[str]:
        """The layouts (of :attr:`allowed`) whose columns are present and non-null in ``row``; when none is, the
        problem + completion layout of a row whose completion is given but empty (it is scored, and abstains with
        its reason, rather than rejected as fitting no layout)."""
        found = []
        if self._problem(row) and _present(row, self.completion_col or "completion"):
            found.append("problem_completion")
        if self.completion_col is None and self._qa(row) and not _present(row, "completion"):
            found.append("question_answer")
        if self._problem(row) and _present(row, self.steps_col or "steps"):
            found.append("problem_steps")
        if _present(row, self.messages_col or "messages"):
            found.append("messages")
        found = [f for f in found if f in self.allowed]
        if not found and self._problem(row) and _blank_text(row, self.completion_col or "completion") \
                and "problem_completion" in self.allowed:
            found.append("problem_completion")
        return found

    def _expected(self) -> str:
        names = {"problem_completion": f"'{self.problem_col or 'problem'}' + '{self.completion_col or 'completion'}'",
                 "question_answer": "'question' + 'answer' (or 'problem' + 'solution')",
                 "problem_steps": f"'{self.problem_col or 'problem'}' + '{self.steps_col or 'steps'}'",
                 "messages": f"'{self.messages_col or 'messages'}'"}
        return ", ".join(names[name] for name in self.allowed)

    def resolve(self, row: Mapping[str, Any], where: str) -> str:
        """The layout of ``row``: the one given, or the one its columns fit (a one-line error otherwise)."""
        if self.layout != "auto":
            return self.layout
        found = self.fits(row)
        cols = sorted(str(k) for k in row)
        if len(found) == 1:
            return found[0]
        if not found:
            raise CommandError(f"{where}: a row needs {self._expected()}; columns found: {cols}; pass --layout and "
                               "--problem-col/--completion-col/--steps-col/--messages-col to name yours")
        raise CommandError(f"{where}: the columns fit more than one layout ({', '.join(found)}); columns found: "
                           f"{cols}; pass --layout {found[0]} (or another) to choose")

    # -- one row -> Item ----------------------------------------------------------------------------------------
    def _need(self, row: Mapping[str, Any], col: str, layout: str, where: str) -> Any:
        if not _present(row, col):
            state = "missing" if col not in row else "empty"
            raise CommandError(f"{where}: column {col!r} is {state} ({layout} layout); columns found: "
                               f"{sorted(str(k) for k in row)}; name the column with --{_flag_for(col, layout)}")
        return row[col]

    def _gold(self, row: Mapping[str, Any], exclude: str | None = None) -> str | None:
        cols = (self.answer_col,) if self.answer_col is not None else _GOLD_COLS
        for col in cols:
            if col != exclude and _present(row, col):
                return str(row[col])
        return None

    def item(self, row: Mapping[str, Any], where: str) -> Item:
        """The :class:`Item` of one row (``where`` names it in errors, e.g. ``data.jsonl:3``)."""
        if not isinstance(row, Mapping):
            raise CommandError(f"{where}: expected an object (a mapping of column: value), got {type(row).__name__}")
        layout = self.resolve(row, where)
        samples = _decode_list(row.get("samples")) if _present(row, "samples") else None
        if samples is not None and not isinstance(samples, list):
            raise CommandError(f"{where}: column 'samples' must be a list of completions, got "
                               f"{type(samples).__name__}")
        if layout == "messages":
            col = self.messages_col or "messages"
            messages = _decode_list(self._need(row, col, layout, where))
            problem, completion = _split_messages(messages, col, where)
            return Item(layout, problem, completion=completion, gold=self._gold(row), samples=samples)
        if layout == "question_answer":
            pair = self._qa(row)
            if pair is None:
                q = self.problem_col or "question"
                a = self.completion_col or "answer"
                self._need(row, q, layout, where)
                self._need(row, a, layout, where)
                pair = (q, a)
            q, a = pair
            problem, solution = _decode_chat(row[q]), _decode_chat(row[a])
            _check_text(problem, q, where)
            _check_text(solution, a, where)
            gold = self._gold(row, exclude=a) or (solution if isinstance(solution, str) else None)
            return Item(layout, problem, completion=solution, gold=gold, samples=samples)
        pcol = self._problem(row) or self.problem_col or "problem"
        problem = _decode_chat(self._need(row, pcol, layout, where))
        _check_text(problem, pcol, where)
        if layout == "problem_steps":
            scol = self.steps_col or "steps"
            steps = _decode_list(self._need(row, scol, layout, where))
            if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
                raise CommandError(f"{where}: column {scol!r} must be a non-empty list of strings (one per step), "
                                   f"got {str(steps)[:40]!r}")
            return Item(layout, problem, steps=steps, gold=self._gold(row), samples=samples)
        ccol = self.completion_col or "completion"
        if _blank_text(row, ccol):  # an empty completion: the scorer abstains with its reason
            return Item(layout, problem, completion="", gold=self._gold(row), samples=samples)
        completion = _decode_chat(self._need(row, ccol, layout, where))
        _check_text(completion, ccol, where)
        return Item(layout, problem, completion=completion, gold=self._gold(row), samples=samples)


def _flag_for(col: str, layout: str) -> str:
    if col in ("steps",):
        return "steps-col"
    if col in ("messages",):
        return "messages-col"
    if col in ("completion", "solution") or (layout == "question_answer" and col == "answer"):
        return "completion-col"
    return "problem-col"


def _check_text(value: Any, col: str, where: str) -> None:
    if not _text_or_chat(value):
        raise CommandError(f"{where}: column {col!r} is a {type(value).__name__}; expected text or a list of chat "
                           "messages")


def _split_messages(messages: Any, col: str, where: str) -> tuple[Any, Any]:
    if not isinstance(messages, list) or not all(isinstance(m, Mapping) for m in messages):
        raise CommandError(f"{where}: column {col!r} must be a list of chat messages ({{'role', 'content'}}), got "
                           f"{type(messages).__name__}")
    last = next((i for i in range(len(messages) - 1, -1, -1) if messages[i].get("role") == "assistant"), None)
    if last is None:
        raise CommandError(f"{where}: column {col!r} has no assistant turn (the completion)")
    user = next((messages[i] for i in range(last - 1, -1, -1) if messages[i].get("role") == "user"), None)
    if user is None:
        raise CommandError(f"{where}: column {col!r} has no user turn before the last assistant turn (the problem)")
    return [dict(user)], [dict(messages[last])]


# -- files -----------------------------------------------------------------------------------------------------

def check_input_path(path: str, *, what: str = "input") -> str:
    """``path`` if it names a readable, non-empty data file (or ``-``); a one-line :class:`CommandError` otherwise."""
    if path == "-":
        return path
    p = Path(path)
    if not p.exists():
        raise CommandError(f"{what} {path!r} does not exist; pass a {', '.join(FORMATS)} file")
    if p.is_dir():
        raise CommandError(f"{what} {path!r} is a folder; pass one {', '.join(FORMATS)} file")
    if not os.access(p, os.R_OK):
        raise CommandError(f"{what} {path!r} cannot be read (permission denied)")
    if p.stat().st_size == 0:
        raise CommandError(f"{what} {path!r} is empty; it must hold at least one row")
    return path


def _sniff(handle: io.TextIOBase) -> str:
    """The first non-blank character of a text stream (the stream is left at its start when seekable)."""
    while True:
        ch = handle.read(1)
        if not ch:
            return ""
        if not ch.isspace():
            return ch


def _format(path: str) -> str:
    suffix = Path(path).suffix.lower()
    if suffix in (".csv", ".parquet"):
        return suffix[1:]
    if path != "-" and suffix not in (".jsonl", ".json"):
        try:
            with open(path, encoding="utf-8") as handle:
                first = _sniff(handle)
        except UnicodeDecodeError:
            first = ""
        if first not in ("[", "{"):
            raise CommandError(f"{path!r}: unreadable format (suffix {suffix or '(none)'!r}, not JSON); use a "
                               f"{', '.join(FORMATS)} file")
    return "json"


def _json_rows(path: str) -> Iterator[tuple[str, Any]]:
    handle = sys.stdin if path == "-" else open(path, encoding="utf-8")
    name = "<stdin>" if path == "-" else path
    try:
        if path == "-":
            text = handle.read()
            handle = io.StringIO(text)
        first = _sniff(handle)
        handle.seek(0)
        if first == "[":
            try:
                data = json.load(handle)
            except json.JSONDecodeError as exc:
                raise CommandError(f"{name}:{exc.lineno}: not valid JSON ({exc.msg}); expected one JSON array of "
                                   "objects or one JSON object per line") from None
            for i, row in enumerate(data, 1):
                yield f"{name} item {i}", row
            return
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CommandError(f"{name}:{lineno}: not valid JSON ({exc.msg}); each line must be one JSON "
                                   "object (or the file one JSON array)") from None
            yield f"{name}:{lineno}", row
    except UnicodeDecodeError as exc:
        raise CommandError(f"{name}: not UTF-8 text ({exc.reason}); expected JSON Lines or a JSON array") from None
    finally:
        if handle is not sys.stdin:
            handle.close()


def _csv_rows(path: str, chunk: int) -> Iterator[tuple[str, Any]]:
    import pandas as pd

    try:
        reader = pd.read_csv(path, chunksize=chunk, dtype=str, keep_default_na=False, na_values=[""])
        n = 0
        for frame in reader:
            for row in frame.astype(object).where(frame.notna(), None).to_dict("records"):
                n += 1
                yield f"{path} row {n}", {k: _decode_list(v) if k in _LIST_COLS else v for k, v in row.items()}
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise CommandError(f"{path}: unreadable CSV ({type(exc).__name__}: {_first_line(exc)})") from None


def _parquet_rows(path: str, chunk: int) -> Iterator[tuple[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        parquet = pq.ParquetFile(path)
        n = 0
        for batch in parquet.iter_batches(batch_size=chunk):
            for row in batch.to_pylist():
                n += 1
                yield f"{path} row {n}", row
    except (OSError, pa.ArrowException) as exc:
        raise CommandError(f"{path}: unreadable parquet ({type(exc).__name__}: {_first_line(exc)})") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else ""


def iter_rows(path: str, *, what: str = "input", chunk: int = 1000) -> Iterator[tuple[str, dict]]:
    """Stream ``(where, row)`` pairs of a JSONL/JSON/CSV/parquet file (``where``: ``file:line`` or ``file row N``).

    Raises :class:`CommandError` (one line) for a missing file, a folder, an empty file, an unreadable format,
    invalid JSON (naming the line) or a row that is not an object.
    """
    check_input_path(path, what=what)
    fmt = _format(path)
    rows = _csv_rows(path, chunk) if fmt == "csv" else _parquet_rows(path, chunk) if fmt == "parquet" \
        else _json_rows(path)
    for where, row in rows:
        if not isinstance(row, Mapping):
            raise CommandError(f"{where}: expected a JSON object (column: value), got {type(row).__name__}")
        yield where, dict(row)


def read_items(path: str, spec: LayoutSpec, *, what: str = "input") -> Iterator[tuple[dict, Item]]:
    """Stream ``(row, Item)`` for every row of ``path`` (:func:`iter_rows`, then :meth:`LayoutSpec.item`); an input
    without a single row is a :class:`CommandError`."""
    n = 0
    for where, row in iter_rows(path, what=what):
        n += 1
        yield row, spec.item(row, where)
    if n == 0:
        raise CommandError(f"{what} {path!r} holds no rows; it must hold at least one")


def peek_columns(path: str, *, what: str = "input") -> list[str]:
    """The columns of the first row of ``path`` (for layout checks before a streamed run)."""
    for _, row in iter_rows(path, what=what):
        return sorted(row)
    raise CommandError(f"{what} {path!r} holds no rows; it must hold at least one")


# -- argparse ------------------------------------------------------------------------------------------------------

def add_reader_arguments(parser: argparse.ArgumentParser, *, layouts: Sequence[str] = LAYOUTS,
                         columns: Sequence[str] = ("problem", "completion", "steps", "answer", "messages"),
                         ) -> argparse._ArgumentGroup:
    """Add ``--layout`` and the column flags (``--problem-col``, ``--completion-col``, ``--steps-col``,
    ``--answer-col``, ``--messages-col``; ``columns`` picks which) to ``parser``; read them with
    :func:`spec_from_args`."""
    group = parser.add_argument_group("input layout",
                                      "input formats: .jsonl, .json (an array or JSON Lines), .csv, .parquet")
    group.add_argument("--layout", default=None, metavar="LAYOUT",
                       help=f"auto (default: from each row's columns) or one of {', '.join(layouts)}")
    helps = {"problem": "the problem column (default: problem or prompt; question for question_answer)",
             "completion": "the completion column (default: completion; the worked solution of question_answer: "
                           "answer or solution)",
             "steps": "the steps column of problem_steps (default: steps)",
             "answer": "the gold-answer column (default: answer or gold; question_answer: the solution's #### X)",
             "messages": "the chat column of messages (default: messages)"}
    for name in columns:
        group.add_argument(f"--{name}-col", dest=f"{name}_col", default=None, metavar="COLUMN", help=helps[name])
    return group


def spec_from_args(args: argparse.Namespace, *, allowed: Sequence[str] = LAYOUTS, layout: str | None = None
                   ) -> LayoutSpec:
    """The :class:`LayoutSpec` of the flags :func:`add_reader_arguments` added (``layout`` overrides ``--layout``
    when the flag was not given, e.g. from a config file)."""
    return LayoutSpec(layout=getattr(args, "layout", None) or layout or "auto",
                      problem_col=getattr(args, "problem_col", None),
                      completion_col=getattr(args, "completion_col", None),
                      steps_col=getattr(args, "steps_col", None), answer_col=getattr(args, "answer_col", None),
                      messages_col=getattr(args, "messages_col", None), allowed=tuple(allowed))
