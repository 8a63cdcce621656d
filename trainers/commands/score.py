"""``rafs score INPUT.jsonl [--out OUT.jsonl]``: score reasoning traces, one JSON row in, one row out.

Each input row has ``problem`` and either ``completion`` (text or chat messages) or ``steps`` (list of strings),
optionally ``samples`` (other completions of the same problem: enables C_A and D_R) and ``answer`` (gold).
Each output row is the input row plus ``rafs`` (0-100 or null), ``status``, ``failure_type``, ``suspect_step``,
``components`` (``P_R``, ``S_RA``, ``C_A``, ``D_R``) and ``step_checks`` (per step ``q`` and ``reasons``).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

SCORE_FIELDS = ("rafs", "status", "failure_type", "suspect_step", "components", "step_checks")


def add_parser(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser("score", help="score reasoning traces (JSONL in, JSONL out)",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("input", help="JSONL file ('-' for stdin)")
    p.add_argument("--out", help="output JSONL (default: stdout); an existing file is not overwritten without --force")
    p.add_argument("--force", action="store_true", help="overwrite --out if it exists")
    p.add_argument("--tau-accept", type=float, default=None, help="RAFS at or above which a trace is accepted")
    p.add_argument("--theta-step", type=float, default=None, help="q_t below which a step is suspect")
    try:
        from rewards.verifiers.registry import add_verifier_arguments
    except ImportError:
        pass
    else:
        add_verifier_arguments(p)
    return p


def _rows(path: str):
    from trainers.cli import CommandError

    handle = sys.stdin if path == "-" else None
    if handle is None:
        if not os.path.exists(path):
            raise CommandError(f"input file {path!r} does not exist")
        handle = open(path, encoding="utf-8", errors="replace")
    with handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CommandError(f"{path}:{lineno}: not valid JSON ({exc.msg}); each line must be one JSON object")
            if not isinstance(row, dict):
                raise CommandError(f"{path}:{lineno}: expected a JSON object, got {type(row).__name__}")
            if "problem" not in row or ("completion" not in row and "steps" not in row):
                raise CommandError(f"{path}:{lineno}: a row needs 'problem' and 'completion' or 'steps' "
                                   f"(got keys {sorted(row)})")
            yield row


def run(args: argparse.Namespace) -> int:
    from rewards.scoring.score import RAFSConfig, score_trace
    from trainers.cli import CommandError

    overrides = {k: v for k, v in (("tau_accept", args.tau_accept), ("theta_step", args.theta_step)) if v is not None}
    try:
        config = RAFSConfig(**overrides)
    except ValueError as exc:
        raise CommandError(str(exc)) from None
    verifier = None
    if getattr(args, "verifier", None) not in (None, "symbolic"):
        from rewards.verifiers.registry import verifier_from_args

        try:
            verifier = verifier_from_args(args)
        except (ValueError, OSError) as exc:
            raise CommandError(str(exc)) from None
    if args.out and os.path.exists(args.out) and not args.force:
        raise CommandError(f"--out {args.out!r} exists; pass --force to overwrite it or choose another path")
    rows = list(_rows(args.input))
    out = open(args.out + ".tmp", "w", encoding="utf-8") if args.out else sys.stdout
    from tqdm import tqdm

    try:
        for row in tqdm(rows, desc="rafs score", unit="trace", disable=len(rows) < 200 or not sys.stderr.isatty()):
            result = score_trace(row.get("problem"), row.get("completion"), steps=row.get("steps"),
                                 samples=row.get("samples"), gold=row.get("answer"), config=config,
                                 verifier=verifier)
            data = result.to_dict()
            out.write(json.dumps({**row, **{k: data[k] for k in SCORE_FIELDS}}, ensure_ascii=False) + "\n")
    finally:
        if args.out:
            out.close()
    if args.out:
        os.replace(args.out + ".tmp", args.out)
    return 0
